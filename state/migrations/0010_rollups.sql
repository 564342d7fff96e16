-- pixdash state, schema version 10: figures that do not grow with the history, a smaller
-- search index, and the pending charges read in pages. It can run again over its own result
-- (a test replays the migrations after 0008 over a newer file).
--
-- paid_hours and created_hours are the Sales view's figures per UTC hour and wallet, kept by
-- triggers in the same transaction as the charge they count, so a period's totals read at most
-- one row per hour and wallet (and state) of the period whatever the history holds; DayReport
-- reads the rows of the charges themselves only for the part of an hour at either end of the
-- period. hour is the timestamp in unix ms divided by 3,600,000. paid_hours counts the payments
-- received (paid_at set and a received state, as the day's totals do), with the sum of their
-- amounts and of the fees the service reported (nfee of them had one); created_hours counts
-- the charges created in the hour by the state they are in now.
CREATE TABLE IF NOT EXISTS paid_hours(
  hour   INTEGER NOT NULL,
  wallet TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  gross  INTEGER NOT NULL,
  nfee   INTEGER NOT NULL,
  fee    INTEGER NOT NULL,
  PRIMARY KEY(hour, wallet)
) WITHOUT ROWID;
DELETE FROM paid_hours;
INSERT INTO paid_hours
  SELECT paid_at / 3600000, wallet, count(*), sum(amount), count(fee), coalesce(sum(fee), 0)
  FROM charges NOT INDEXED WHERE paid_at IS NOT NULL AND state IN ('paid', 'refunded', 'returned', 'blocked') GROUP BY 1, 2;
CREATE TRIGGER IF NOT EXISTS paid_hours_ins AFTER INSERT ON charges
  WHEN new.paid_at IS NOT NULL AND new.state IN ('paid', 'refunded', 'returned', 'blocked') BEGIN
  INSERT INTO paid_hours VALUES(new.paid_at / 3600000, new.wallet, 1, new.amount, new.fee IS NOT NULL, coalesce(new.fee, 0))
    ON CONFLICT(hour, wallet) DO UPDATE SET n = n + 1, gross = gross + excluded.gross, nfee = nfee + excluded.nfee, fee = fee + excluded.fee;
END;
CREATE TRIGGER IF NOT EXISTS paid_hours_del AFTER DELETE ON charges
  WHEN old.paid_at IS NOT NULL AND old.state IN ('paid', 'refunded', 'returned', 'blocked') BEGIN
  UPDATE paid_hours SET n = n - 1, gross = gross - old.amount, nfee = nfee - (old.fee IS NOT NULL), fee = fee - coalesce(old.fee, 0)
    WHERE hour = old.paid_at / 3600000 AND wallet = old.wallet;
END;
CREATE TRIGGER IF NOT EXISTS paid_hours_upd_old AFTER UPDATE OF paid_at, wallet, state, amount, fee ON charges
  WHEN old.paid_at IS NOT NULL AND old.state IN ('paid', 'refunded', 'returned', 'blocked')
    AND (new.paid_at IS NOT old.paid_at OR new.wallet <> old.wallet OR new.state <> old.state OR new.amount <> old.amount OR new.fee IS NOT old.fee) BEGIN
  UPDATE paid_hours SET n = n - 1, gross = gross - old.amount, nfee = nfee - (old.fee IS NOT NULL), fee = fee - coalesce(old.fee, 0)
    WHERE hour = old.paid_at / 3600000 AND wallet = old.wallet;
END;
CREATE TRIGGER IF NOT EXISTS paid_hours_upd_new AFTER UPDATE OF paid_at, wallet, state, amount, fee ON charges
  WHEN new.paid_at IS NOT NULL AND new.state IN ('paid', 'refunded', 'returned', 'blocked')
    AND (new.paid_at IS NOT old.paid_at OR new.wallet <> old.wallet OR new.state <> old.state OR new.amount <> old.amount OR new.fee IS NOT old.fee) BEGIN
  INSERT INTO paid_hours VALUES(new.paid_at / 3600000, new.wallet, 1, new.amount, new.fee IS NOT NULL, coalesce(new.fee, 0))
    ON CONFLICT(hour, wallet) DO UPDATE SET n = n + 1, gross = gross + excluded.gross, nfee = nfee + excluded.nfee, fee = fee + excluded.fee;
END;

CREATE TABLE IF NOT EXISTS created_hours(
  hour   INTEGER NOT NULL,
  wallet TEXT    NOT NULL,
  state  TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY(hour, wallet, state)
) WITHOUT ROWID;
DELETE FROM created_hours;
INSERT INTO created_hours
  SELECT created_at / 3600000, wallet, state, count(*) FROM charges NOT INDEXED GROUP BY 1, 2, 3;
CREATE TRIGGER IF NOT EXISTS created_hours_ins AFTER INSERT ON charges BEGIN
  INSERT INTO created_hours VALUES(new.created_at / 3600000, new.wallet, new.state, 1)
    ON CONFLICT(hour, wallet, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS created_hours_del AFTER DELETE ON charges BEGIN
  UPDATE created_hours SET n = n - 1 WHERE hour = old.created_at / 3600000 AND wallet = old.wallet AND state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS created_hours_upd AFTER UPDATE OF created_at, wallet, state ON charges
  WHEN new.created_at <> old.created_at OR new.wallet <> old.wallet OR new.state <> old.state BEGIN
  UPDATE created_hours SET n = n - 1 WHERE hour = old.created_at / 3600000 AND wallet = old.wallet AND state = old.state;
  INSERT INTO created_hours VALUES(new.created_at / 3600000, new.wallet, new.state, 1)
    ON CONFLICT(hour, wallet, state) DO UPDATE SET n = n + 1;
END;

-- paid_days and created_days are the same figures per UTC day (day: unix ms / 86,400,000), for
-- the totals of a long period: its whole UTC days are read there, the hours at either end from
-- the hourly tables.
CREATE TABLE IF NOT EXISTS paid_days(
  day    INTEGER NOT NULL,
  wallet TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  gross  INTEGER NOT NULL,
  nfee   INTEGER NOT NULL,
  fee    INTEGER NOT NULL,
  PRIMARY KEY(day, wallet)
) WITHOUT ROWID;
DELETE FROM paid_days;
INSERT INTO paid_days SELECT hour / 24, wallet, sum(n), sum(gross), sum(nfee), sum(fee) FROM paid_hours GROUP BY 1, 2;
CREATE TRIGGER IF NOT EXISTS paid_days_ins AFTER INSERT ON charges
  WHEN new.paid_at IS NOT NULL AND new.state IN ('paid', 'refunded', 'returned', 'blocked') BEGIN
  INSERT INTO paid_days VALUES(new.paid_at / 86400000, new.wallet, 1, new.amount, new.fee IS NOT NULL, coalesce(new.fee, 0))
    ON CONFLICT(day, wallet) DO UPDATE SET n = n + 1, gross = gross + excluded.gross, nfee = nfee + excluded.nfee, fee = fee + excluded.fee;
END;
CREATE TRIGGER IF NOT EXISTS paid_days_del AFTER DELETE ON charges
  WHEN old.paid_at IS NOT NULL AND old.state IN ('paid', 'refunded', 'returned', 'blocked') BEGIN
  UPDATE paid_days SET n = n - 1, gross = gross - old.amount, nfee = nfee - (old.fee IS NOT NULL), fee = fee - coalesce(old.fee, 0)
    WHERE day = old.paid_at / 86400000 AND wallet = old.wallet;
END;
CREATE TRIGGER IF NOT EXISTS paid_days_upd_old AFTER UPDATE OF paid_at, wallet, state, amount, fee ON charges
  WHEN old.paid_at IS NOT NULL AND old.state IN ('paid', 'refunded', 'returned', 'blocked')
    AND (new.paid_at IS NOT old.paid_at OR new.wallet <> old.wallet OR new.state <> old.state OR new.amount <> old.amount OR new.fee IS NOT old.fee) BEGIN
  UPDATE paid_days SET n = n - 1, gross = gross - old.amount, nfee = nfee - (old.fee IS NOT NULL), fee = fee - coalesce(old.fee, 0)
    WHERE day = old.paid_at / 86400000 AND wallet = old.wallet;
END;
CREATE TRIGGER IF NOT EXISTS paid_days_upd_new AFTER UPDATE OF paid_at, wallet, state, amount, fee ON charges
  WHEN new.paid_at IS NOT NULL AND new.state IN ('paid', 'refunded', 'returned', 'blocked')
    AND (new.paid_at IS NOT old.paid_at OR new.wallet <> old.wallet OR new.state <> old.state OR new.amount <> old.amount OR new.fee IS NOT old.fee) BEGIN
  INSERT INTO paid_days VALUES(new.paid_at / 86400000, new.wallet, 1, new.amount, new.fee IS NOT NULL, coalesce(new.fee, 0))
    ON CONFLICT(day, wallet) DO UPDATE SET n = n + 1, gross = gross + excluded.gross, nfee = nfee + excluded.nfee, fee = fee + excluded.fee;
END;

CREATE TABLE IF NOT EXISTS created_days(
  day    INTEGER NOT NULL,
  wallet TEXT    NOT NULL,
  state  TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY(day, wallet, state)
) WITHOUT ROWID;
DELETE FROM created_days;
INSERT INTO created_days SELECT hour / 24, wallet, state, sum(n) FROM created_hours GROUP BY 1, 2, 3;
CREATE TRIGGER IF NOT EXISTS created_days_ins AFTER INSERT ON charges BEGIN
  INSERT INTO created_days VALUES(new.created_at / 86400000, new.wallet, new.state, 1)
    ON CONFLICT(day, wallet, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS created_days_del AFTER DELETE ON charges BEGIN
  UPDATE created_days SET n = n - 1 WHERE day = old.created_at / 86400000 AND wallet = old.wallet AND state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS created_days_upd AFTER UPDATE OF created_at, wallet, state ON charges
  WHEN new.created_at <> old.created_at OR new.wallet <> old.wallet OR new.state <> old.state BEGIN
  UPDATE created_days SET n = n - 1 WHERE day = old.created_at / 86400000 AND wallet = old.wallet AND state = old.state;
  INSERT INTO created_days VALUES(new.created_at / 86400000, new.wallet, new.state, 1)
    ON CONFLICT(day, wallet, state) DO UPDATE SET n = n + 1;
END;

-- The payments whose money a MED block returned or holds, for the period's figures: few, so
-- the period no longer walks every payment of its range to find them.
CREATE INDEX IF NOT EXISTS charges_med ON charges(paid_at) WHERE paid_at IS NOT NULL AND state IN ('returned', 'blocked');

-- The charges that are not final, read in pages by id (Store.PendingPage): the index holds
-- only them, so a page costs the same however long the history.
CREATE INDEX IF NOT EXISTS charges_pending ON charges(id) WHERE state IN ('pending', 'unknown');

-- The search index keeps which charges hold each trigram and no longer where in the text
-- (detail=none) nor each text's length (columnsize=0): a query asks for the trigrams of its
-- text and the text itself is then checked on the charge (instr over charges.hay). About 1.4 KB
-- less per charge. Still an external-content index over charges.hay, its rowid the list order.
DROP TRIGGER IF EXISTS charges_fts_ins;
DROP TRIGGER IF EXISTS charges_fts_del;
DROP TRIGGER IF EXISTS charges_fts_upd;
DROP TABLE IF EXISTS charges_fts;
CREATE VIRTUAL TABLE charges_fts USING fts5(hay, content='charges', content_rowid='seq', tokenize='trigram', detail=none, columnsize=0);
INSERT INTO charges_fts(charges_fts) VALUES ('rebuild');
CREATE TRIGGER IF NOT EXISTS charges_fts_ins AFTER INSERT ON charges BEGIN
  INSERT INTO charges_fts(rowid, hay) VALUES (new.seq, new.hay);
END;
CREATE TRIGGER IF NOT EXISTS charges_fts_del AFTER DELETE ON charges BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) VALUES ('delete', old.seq, old.hay);
END;
CREATE TRIGGER IF NOT EXISTS charges_fts_upd AFTER UPDATE OF seq, hay ON charges
  WHEN old.seq <> new.seq OR old.hay <> new.hay BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) VALUES ('delete', old.seq, old.hay);
  INSERT INTO charges_fts(rowid, hay) VALUES (new.seq, new.hay);
END;
