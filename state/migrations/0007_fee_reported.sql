-- pixdash state, schema version 7: a payment's fee from its event is reported, not confirmed.
--
-- The service's GET /transactions/{id} carries no fee, so every fee stored so far came from a
-- payment_completed event: it moves to the charge's feeReported (kept when between 0 and the
-- amount, shown as unconfirmed) and leaves the fee column, so the totals use the estimate.
UPDATE charges SET fee = NULL,
  doc = json_set(json_remove(doc, '$.fee'), '$.feeReported', json_extract(doc, '$.fee'))
  WHERE fee IS NOT NULL AND fee >= 0 AND fee <= amount AND json_valid(doc);
UPDATE charges SET fee = NULL, doc = json_remove(doc, '$.fee') WHERE fee IS NOT NULL AND json_valid(doc);
UPDATE charges SET fee = NULL WHERE fee IS NOT NULL;
