// Package state holds the merchant's domain as the dashboard keeps it: tracked charges, webhook
// events (deduplicated by eventId) and their verdicts, pending charge submissions (for
// idempotent creation across crashes), the learned PIX fee, recent inspector lookups and the
// split builder's draft. It imports no UI code.
//
// # Storage
//
// Store keeps one profile's state in an SQLite database, <dir>/<name>.db (name is
// ProfileFileName(profile)), through the pure-Go driver modernc.org/sqlite: no cgo. The schema
// is the numbered files in migrations/, applied in order at Open (PRAGMA user_version records
// the last). The database runs in WAL mode with synchronous=FULL, so a commit returns after the
// WAL is fsynced: every write method returns once its transaction is committed, and a nil
// error is the acknowledgement. All writes of a process go through one writer goroutine that
// puts the writes queued meanwhile into one transaction (each in its own savepoint, so one
// failure leaves the others alone): concurrent writers share one fsync. Writes take the lock at
// BEGIN (BEGIN IMMEDIATE), so two processes on one profile wait for each other instead of
// failing midway. Reads use a separate pool of read-only connections and never wait on the
// writer.
//
// Nothing loads the whole history: the lists are read a window at a time (ChargeWindow,
// EventWindow), newest first through the row order itself (charges.seq is the creation time in
// milliseconds shifted left by 20 bits), with exact counts per wallet and state kept by
// triggers and a trigram full-text index for the list filter. In memory the store keeps only
// the charges that are not final (the poll schedule), a small cache of recent charges (Peek)
// and the learned fee.
//
// Webhook deliveries reach the store through an Intake (OpenIntake), which holds the
// profile's receiver lock (<name>.receiver) and records each verified payload before the
// receiver answers 200.
//
// No secrets exist in the state: no token, client secret or signing secret is stored.
// Submissions keep the request body (customer data included) until they are resolved; the
// database is created with mode 0600 in a directory created with mode 0700.
package state
