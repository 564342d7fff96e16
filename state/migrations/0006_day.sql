-- pixdash state, schema version 6: the merchant's day (totals, chart, close).
--
-- fee is the fee the service reported for a payment (feeAmount of the payment_completed event
-- that was read back and confirmed), in centavos; NULL when the service did not report it, and
-- the totals then use the profile's fee, marked as an estimate. The paid index covers the
-- period query (received per hour or per day, per wallet) so it reads no table row.
ALTER TABLE charges ADD COLUMN fee INTEGER;
DROP INDEX charges_paid;
CREATE INDEX charges_paid ON charges(paid_at, wallet, state, amount, fee) WHERE paid_at IS NOT NULL;
-- The refunds and MED blocks of a period are found by the events received in it; a partial
-- index, so the flood of payment events pays nothing for it.
CREATE INDEX events_day ON events(received_at, kind)
  WHERE kind IN ('refund_completed', 'balance_block_created', 'balance_block_approved', 'balance_block_rejected');
