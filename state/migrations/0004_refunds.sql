-- pixdash state, schema version 4: refunds asked from this dashboard, one per charge (the
-- service refunds the whole remaining amount). The record is written before the request is
-- sent, so a lost reply is read back from the service before anything is sent again. doc is
-- the JSON of state.Refund.
CREATE TABLE refunds(
  charge_id TEXT PRIMARY KEY,
  doc       TEXT NOT NULL
);
