-- pixdash state: the partial index events_day tests an event's kind without a temporary table.
--
-- Its condition was kind IN (four kinds). SQLite evaluates a partial index's condition for
-- every row inserted, and an IN list of more than two values is built into a temporary B-tree
-- each time the INSERT runs: for a webhook event, which the store inserts one statement at a
-- time, that was a b-tree opened, filled with four keys, searched and closed, about 4 µs of a
-- 10 µs insert, on the writer's goroutine that every delivery of a flood waits for. The same
-- kinds written as equalities joined by OR are compared in place. A query uses the index when
-- its WHERE repeats this condition (dayEventKinds, state/day.go), as before.
DROP INDEX IF EXISTS events_day;
CREATE INDEX events_day ON events(received_at, kind)
  WHERE kind = 'refund_completed' OR kind = 'balance_block_created' OR kind = 'balance_block_approved' OR kind = 'balance_block_rejected';
