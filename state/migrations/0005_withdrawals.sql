-- pixdash state, schema version 5: PIX withdrawals asked from this dashboard, one row per
-- form (its Idempotency-Key). The record is written before the request is sent, so a lost
-- reply is asked again with the same key (the service answers the first outcome), never sent
-- twice blindly. doc is the JSON of state.Withdrawal.
CREATE TABLE withdrawals(
  idem_key     TEXT PRIMARY KEY,
  wallet       TEXT    NOT NULL,
  requested_at INTEGER NOT NULL, -- unix ms
  doc          TEXT    NOT NULL
);
CREATE INDEX withdrawals_wallet ON withdrawals(wallet, requested_at);
