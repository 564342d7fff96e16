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
-- withdrawal_* and balance_block_* events are read back against the service from now on, and
-- count only once it confirms them: those not read back yet become eligible for it.
UPDATE events SET payment = 1 WHERE verdict = '' AND kind IN ('withdrawal_completed', 'withdrawal_failed',
  'withdrawal_reversed', 'balance_block_created', 'balance_block_approved', 'balance_block_rejected');
