// Package state holds the merchant's domain as the dashboard keeps it: tracked charges (with a
// filtered newest-first view and a poll schedule), webhook events (deduplicated by eventId),
// pending charge submissions (for idempotent creation across crashes), the learned PIX fee,
// recent inspector lookups and the split builder's draft. It imports no UI code.
//
// # Persistence
//
// Store keeps one profile's state in dir (the caller passes $XDG_STATE_HOME/pixdash):
//
//   - <name>.journal: append-only JSON lines, one record per change,
//     {"v":1,"t":"charge|event|event_dup|sub_begin|sub_done|sub_abandon|fee|lookup","at":...,"d":{...}}
//     followed by a space and the CRC-32C of the JSON in 8 hex digits. The first line is a
//     "head" record naming the journal's generation.
//   - <name>.snapshot: the whole state in the same line format ("snap" header, "end" trailer
//     with the record count), written to a temporary file, fsynced, renamed, directory fsynced.
//   - <name>.inbox: verified webhook payloads not yet applied (see Inbox), one checksummed
//     line each, written by the process that receives the profile's webhooks (it holds an
//     exclusive flock on the file) and emptied once the Store has committed them.
//   - <name>.lock: taken with flock(LOCK_EX) around every read-modify-write of the files, so
//     several instances on one profile append safely; each write re-opens the journal, first
//     applies what other instances appended, then appends and fsyncs. A write method returns
//     after the fsync: that is the acknowledgement.
//
// On open the snapshot and the journal are replayed. A damaged last line (a crash mid-write,
// never acknowledged) is truncated away. Damage followed by valid records is corruption: the
// file is kept as <file>.corrupt-<UTC time> (hard-linked, or renamed where links fail; never
// deleted), the records before the damage are kept and saved as a new snapshot (the valid
// records after the damage are not applied: they stay in the kept file), and Open returns the
// store with a *CorruptError. After DefaultCompactEvery (or WithCompactEvery) journal records,
// or as many as the snapshot would hold when that is more (so that compaction costs at most one
// rewritten record per appended one), the state is written as a snapshot of the next generation and the journal is replaced by an
// empty one; a journal of an older generation than the snapshot (a crash between the two
// steps) is ignored, since the snapshot holds it.
//
// Webhook events are journaled as received: the payload bytes DecodeEvent validated (Event.Raw)
// are written as they are (only a payload spanning several lines is compacted), so a caller that
// builds an Event by hand must leave Raw empty or valid. Store.ApplyEvents applies a batch of
// events under one lock and commits it with one fsync. A snapshot keeps only the newest
// MaxSnapshotEvents events, so compaction rewrites a bounded number of them; older events stay
// in memory while the store is open and in the journal until it is compacted, and are then
// dropped (charges they updated keep their state: charges are always in the snapshot).
//
// Records are order-tolerant, because two instances may apply each other's records in a
// different order than the file holds them: a charge record carries the charge's full state
// and is merged (a final status never returns to pending), events are deduplicated by eventId,
// the newest learned fee wins, lookups are ordered by time.
//
// No secrets exist in the state: no token, client secret or signing secret field is stored.
// Submissions keep the request body (customer data included) until they are resolved; files
// are created with mode 0600 in a directory created with mode 0700.
package state
