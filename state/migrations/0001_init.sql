-- pixdash state, schema version 1.
--
-- charges.seq is the rowid and the list order: created_at in unix ms shifted left by 20 bits,
-- plus a counter for charges created in the same millisecond, so rowid order is creation order
-- and "newest first" is ORDER BY seq DESC with no sort. Money is integer centavos.

CREATE TABLE charges(
  seq                INTEGER PRIMARY KEY,
  id                 TEXT    NOT NULL UNIQUE,
  wallet             TEXT    NOT NULL,
  state              TEXT    NOT NULL,            -- display state: pending, paid, expired, failed, cancelled, unknown
  amount             INTEGER NOT NULL,            -- centavos
  external_reference TEXT    NOT NULL DEFAULT '',
  created_at         INTEGER NOT NULL,            -- unix ms
  paid_at            INTEGER,                     -- unix ms; NULL until paid
  updated_at         INTEGER NOT NULL,            -- unix ms
  hay                TEXT    NOT NULL,            -- what the list filter matches (lowercase)
  doc                TEXT    NOT NULL             -- the whole charge, JSON
);
CREATE INDEX charges_wallet       ON charges(wallet);          -- (wallet, seq): newest first in a wallet
CREATE INDEX charges_state        ON charges(state);           -- (state, seq)
CREATE INDEX charges_wallet_state ON charges(wallet, state);   -- (wallet, state, seq)
CREATE INDEX charges_created      ON charges(created_at, wallet, state, amount); -- totals over a time range
CREATE INDEX charges_ref          ON charges(external_reference, wallet) WHERE external_reference <> '';
CREATE INDEX charges_paid         ON charges(paid_at, wallet, amount) WHERE paid_at IS NOT NULL;

-- Exact counts per wallet and state, kept by triggers, for the header and the list's total.
CREATE TABLE charge_counts(
  wallet TEXT    NOT NULL,
  state  TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY(wallet, state)
) WITHOUT ROWID;
CREATE TRIGGER charges_count_ins AFTER INSERT ON charges BEGIN
  INSERT INTO charge_counts VALUES(new.wallet, new.state, 1, new.amount)
    ON CONFLICT(wallet, state) DO UPDATE SET n = n + 1, amount = amount + excluded.amount;
END;
CREATE TRIGGER charges_count_del AFTER DELETE ON charges BEGIN
  UPDATE charge_counts SET n = n - 1, amount = amount - old.amount WHERE wallet = old.wallet AND state = old.state;
END;
CREATE TRIGGER charges_count_upd AFTER UPDATE OF wallet, state, amount ON charges
  WHEN old.wallet <> new.wallet OR old.state <> new.state OR old.amount <> new.amount BEGIN
  UPDATE charge_counts SET n = n - 1, amount = amount - old.amount WHERE wallet = old.wallet AND state = old.state;
  INSERT INTO charge_counts VALUES(new.wallet, new.state, 1, new.amount)
    ON CONFLICT(wallet, state) DO UPDATE SET n = n + 1, amount = amount + excluded.amount;
END;

-- Trigram full-text index over charges.hay (external content: the text is not stored twice).
CREATE VIRTUAL TABLE charges_fts USING fts5(hay, content='charges', content_rowid='seq', tokenize='trigram', detail=full);
CREATE TRIGGER charges_fts_ins AFTER INSERT ON charges BEGIN
  INSERT INTO charges_fts(rowid, hay) VALUES (new.seq, new.hay);
END;
CREATE TRIGGER charges_fts_del AFTER DELETE ON charges BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) VALUES ('delete', old.seq, old.hay);
END;
CREATE TRIGGER charges_fts_upd AFTER UPDATE OF seq, hay ON charges
  WHEN old.seq <> new.seq OR old.hay <> new.hay BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) VALUES ('delete', old.seq, old.hay);
  INSERT INTO charges_fts(rowid, hay) VALUES (new.seq, new.hay);
END;

-- Webhook events, one row per eventId (the primary key is the dedupe), in arrival order.
CREATE TABLE events(
  seq            INTEGER PRIMARY KEY,
  event_id       TEXT    NOT NULL UNIQUE,
  kind           TEXT    NOT NULL,
  wallet         TEXT    NOT NULL,
  transaction_id TEXT    NOT NULL DEFAULT '',
  received_at    INTEGER NOT NULL,                -- unix ms of the first copy
  copies         INTEGER NOT NULL DEFAULT 1,
  payment        INTEGER NOT NULL DEFAULT 0,      -- 1 for payment_* kinds (read back against the service)
  verdict        TEXT    NOT NULL DEFAULT '',     -- '', confirmed, disputed, unknown
  verdict_reason TEXT    NOT NULL DEFAULT '',
  raw            BLOB    NOT NULL                 -- the verified payload as received
);
CREATE INDEX events_kind     ON events(kind);              -- (kind, seq)
CREATE INDEX events_wallet   ON events(wallet, kind);      -- (wallet, kind, seq)
CREATE INDEX events_tx       ON events(transaction_id);
CREATE INDEX events_received ON events(received_at);       -- pruning by date
CREATE INDEX events_unchecked ON events(seq) WHERE verdict = '' AND payment = 1; -- payment events not read back yet

-- Event counts per wallet and kind, kept by triggers, for the events view's totals.
CREATE TABLE event_counts(
  wallet TEXT    NOT NULL,
  kind   TEXT    NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY(wallet, kind)
) WITHOUT ROWID;
CREATE TRIGGER events_count_ins AFTER INSERT ON events BEGIN
  INSERT INTO event_counts VALUES(new.wallet, new.kind, 1)
    ON CONFLICT(wallet, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER events_count_del AFTER DELETE ON events BEGIN
  UPDATE event_counts SET n = n - 1 WHERE wallet = old.wallet AND kind = old.kind;
END;

-- POST /pix requests persisted before their first attempt, until resolved.
CREATE TABLE submissions(
  key        TEXT    PRIMARY KEY,
  wallet     TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  doc        TEXT    NOT NULL                     -- the Submission, JSON
) WITHOUT ROWID;

-- Inspector queries, newest kept.
CREATE TABLE lookups(
  seq    INTEGER PRIMARY KEY,
  at     INTEGER NOT NULL,
  doc    TEXT    NOT NULL
);

-- Small facts: the learned fee, the change counter of charges.
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO meta VALUES ('charges_version', '0');
CREATE TRIGGER charges_version_ins AFTER INSERT ON charges BEGIN
  UPDATE meta SET value = value + 1 WHERE key = 'charges_version';
END;
CREATE TRIGGER charges_version_upd AFTER UPDATE ON charges BEGIN
  UPDATE meta SET value = value + 1 WHERE key = 'charges_version';
END;
