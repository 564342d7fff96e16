-- pixdash state, schema version 3: the profile's on_paid command, run once per paid charge.
--
-- A row is inserted (or ignored, when one is there) before the command starts, by whichever
-- window sees the payment confirmed first: a second window, a restart or a second read-back
-- finds it and runs nothing. A crash between the insert and the run skips that payment's
-- command rather than running it twice. outcome is filled in when the run ends ("ok", "exit
-- status 1", "timed out after 30s", ...); the command's output is never stored.
CREATE TABLE on_paid_runs(
  charge_id   TEXT    PRIMARY KEY,
  command     TEXT    NOT NULL,
  claimed_at  INTEGER NOT NULL,
  finished_at INTEGER,
  outcome     TEXT
);
