-- pixdash state, schema version 2: fewer indexes to keep up on every webhook.
--
-- Nothing looks events up by transaction id, and pruning by date is a rare command that may
-- scan: each of these indexes cost every delivery a B-tree insert (about 7 µs of the writer's
-- time per event in a flood) for no query of the dashboard.
DROP INDEX events_tx;
DROP INDEX events_received;
