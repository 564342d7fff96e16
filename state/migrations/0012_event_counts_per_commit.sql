-- pixdash state: the events' counts are written once per commit, not by a trigger per row.
--
-- During a webhook flood every delivery's insert ran events_count_ins, an upsert of its
-- (wallet, kind) row in event_counts; the store now adds up the events each commit stores
-- (insertEventSeqTx) and writes each (wallet, kind) of the commit once, in the same
-- transaction, so the counts stay exact. Deletions (pruning) still count down by trigger. The
-- counts of an existing profile are already right: nothing to convert.
DROP TRIGGER IF EXISTS events_count_ins;
