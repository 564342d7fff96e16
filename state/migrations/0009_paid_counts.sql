-- pixdash state: the paid charges' counts, kept by triggers, so that opening a profile can
-- check the paid index (charges_paid, which the day's totals and the close read alone) against
-- them without reading the charges themselves. Per wallet and state, like charge_counts.
-- It can run again over its own result (a test replays the migrations after 0008 over a newer file).
CREATE TABLE IF NOT EXISTS paid_counts(
  wallet TEXT    NOT NULL,
  state  TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY(wallet, state)
) WITHOUT ROWID;
DELETE FROM paid_counts;
INSERT INTO paid_counts
  SELECT wallet, state, count(*), sum(amount) FROM charges NOT INDEXED WHERE paid_at IS NOT NULL GROUP BY 1, 2;
CREATE TRIGGER IF NOT EXISTS charges_paid_ins AFTER INSERT ON charges WHEN new.paid_at IS NOT NULL BEGIN
  INSERT INTO paid_counts VALUES(new.wallet, new.state, 1, new.amount)
    ON CONFLICT(wallet, state) DO UPDATE SET n = n + 1, amount = amount + excluded.amount;
END;
CREATE TRIGGER IF NOT EXISTS charges_paid_del AFTER DELETE ON charges WHEN old.paid_at IS NOT NULL BEGIN
  UPDATE paid_counts SET n = n - 1, amount = amount - old.amount WHERE wallet = old.wallet AND state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS charges_paid_upd_old AFTER UPDATE OF paid_at, wallet, state, amount ON charges
  WHEN old.paid_at IS NOT NULL AND (new.paid_at IS NULL OR old.wallet <> new.wallet OR old.state <> new.state OR old.amount <> new.amount) BEGIN
  UPDATE paid_counts SET n = n - 1, amount = amount - old.amount WHERE wallet = old.wallet AND state = old.state;
END;
CREATE TRIGGER IF NOT EXISTS charges_paid_upd_new AFTER UPDATE OF paid_at, wallet, state, amount ON charges
  WHEN new.paid_at IS NOT NULL AND (old.paid_at IS NULL OR old.wallet <> new.wallet OR old.state <> new.state OR old.amount <> new.amount) BEGIN
  INSERT INTO paid_counts VALUES(new.wallet, new.state, 1, new.amount)
    ON CONFLICT(wallet, state) DO UPDATE SET n = n + 1, amount = amount + excluded.amount;
END;
