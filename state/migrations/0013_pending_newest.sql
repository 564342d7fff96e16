-- pixdash state: the newest pending charges read without sorting every pending one.
--
-- readPending asks for the newest MaxPolled charges that are not final. Through
-- charges_pending (ordered by id, for PendingPage) SQLite walked every pending charge and kept
-- the newest in a temporary B-tree: 200 ms at a million pending (an online shop's abandoned
-- checkouts), on a reader, while the dashboard drew its first frames. This index holds the same
-- charges in the list's order, so the newest are the first entries walked backwards. It costs
-- an entry only while a charge is pending.
CREATE INDEX IF NOT EXISTS charges_pending_seq ON charges(seq) WHERE state IN ('pending', 'unknown');
