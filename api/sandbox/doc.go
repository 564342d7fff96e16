// Package sandbox is a stateful emulator of the whole payment service: an http.Handler that serves
// the API under /v2 (every rule of the spec, with balances, statements, expiry, blocked deposits,
// balance blocks and signed webhooks) plus control endpoints under /v2/_sandbox that play the
// payer, the payment institution and the back office.
//
// Typical use:
//
//	srv := sandbox.New(sandbox.DefaultFixture())          // or ParseFixture(file)
//	defer srv.Close()
//	err := sandbox.ListenAndServe(ctx, "127.0.0.1:8080", srv, func(base string) { fmt.Println(base) })
//
// In tests: sandbox.New(fx, sandbox.WithClock(sandbox.NewFakeClock(t0)), sandbox.WithWebhookScale(0.001))
// behind httptest.NewServer, and NewControl(apiClient) to pay, expire, refund, block, change the fee,
// register webhook endpoints and inject faults.
//
// # Control endpoints (same bearer token as the API, any permission; X-Sub-Account is ignored)
//
//	POST /_sandbox/charges/{id}/pay             {"payerName","payerDocument"}   200 transaction
//	POST /_sandbox/charges/{id}/expire                                          200 transaction
//	POST /_sandbox/transactions/{id}/refund     {"amount"?}                     201 refund transaction
//	POST /_sandbox/balance-blocks               {"transactionId","amount"?,"blockType"?,"reason"?}  201 block
//	POST /_sandbox/balance-blocks/{id}/resolve  {"status","resolutionReason"?}  200 block
//	POST /_sandbox/withdrawals                  {"amount","subAccount"?,"outcome"?}  201 transaction
//	PUT  /_sandbox/fee                          {"pixFee":"1.50"}               200 {"pixFee"}
//	POST /_sandbox/webhook-endpoints            {"url","subAccount"?}           201 {"id","url","subAccount","secret","createdAt"}
//	GET  /_sandbox/webhook-deliveries                                           200 {"items","total"}
//	GET  /_sandbox/wallets                                                      200 {"items","total"}
//	PUT  /_sandbox/faults                       {"dropResponseAfterCommit","error500","latencyMs"}  200
//
// Ids are looked up in every wallet of the caller's account only; anything else is 404.
//
// # Decisions where the spec says "not shown"
//
// Wire and errors:
//   - POST /auth answers 200. A credential whose IP is outside its allow-list gets 403
//     {"error":"Forbidden","message":...} from /auth (after the secret is checked) and a 403 envelope elsewhere.
//   - Missing token: 401 "Access token is required: ..."; bad signature or shape: 401 "Invalid access token";
//     expired (exp <= now, exp = iat + 300 s): 401 "Access token expired: ..."; revoked credential: 401
//     "Invalid credentials", also for its already issued tokens.
//   - Check order: route (404/405) → token (401) → revoked (401) → IP (403) → permission (403) →
//     X-Sub-Account (400 malformed, 403 SUB_ACCOUNT_FORBIDDEN, 404 SUB_ACCOUNT_NOT_FOUND, 403 SUB_ACCOUNT_SUSPENDED).
//     Without sub-account access even an unknown reference gets 403 (existence is not revealed).
//   - Sub-account codes travel in a top-level "code" field AND in details.code, and prefix the message;
//     institution-choice reasons in a top-level "reason" AND details.reason.
//     404 details: {resource, id} (resource is transaction, charge, project, balance_block or sub_account);
//     409 details: {resource: "sub_account", field: "reference"|"quota", value, code}.
//   - Envelope kinds beyond the spec's list: 405 MethodNotAllowed (with an Allow header),
//     413 PayloadTooLarge (bodies above 1 MiB), 422 UnprocessableEntity. Every reply carries X-Trace-Id.
//   - Validation messages follow the spec's examples ("amount must not be less than 1",
//     "split.0.amount must not be less than 0.01"); a number with more than 2 decimals is
//     "<field> must have at most 2 decimal places"; amounts must be JSON numbers (not strings);
//     expiresIn must be an integer; the amount may not exceed 9999999999.99 (what a BR Code can carry).
//     customer sub-fields are optional strings of at most 255 characters; unknown body fields are ignored.
//   - POST /pix checks, in order: Idempotency-Key length, cache (replay or 422), body and field limits,
//     split item count and amounts, sub-account access of split destinations (403), the other split rules
//     (first problem of api.CheckSplit), projectId (404 when not a project of the account), institution
//     pinning (self_routing_disabled, credential_not_linked, credential_not_enabled, credential_inactive,
//     out_capacity_exhausted, then 500 when the pinned institution is down). Nothing is stored before all pass.
//   - Unpinned charges use the first enabled, active, up institution; when every linked institution is
//     down or disabled the answer is 500 "Payment service temporarily unavailable"; an account without
//     institutions uses a built-in one. pspPaymentId is always returned.
//   - Idempotency: keys are scoped to account + wallet (X-Sub-Account); "same body" means the same JSON
//     after decoding (key order and spacing do not matter, number spelling does); only 201 replies are
//     cached (a refused request can be retried with the same key and a new body); replays carry
//     Idempotent-Replayed: true. Entries live 24 h on the server clock (swept lazily, capped at 100 000).
//   - GET /transactions/{id} looks in the wallet of X-Sub-Account only: id, then externalReference (the
//     most recent charge with it), then Idempotency-Key (kept for the life of the charge, not only 24 h).
//   - GET /projects: page (default 1), limit (default 10, 1..100), sortBy (createdAt default, updatedAt,
//     name — case-insensitive), sortOrder (desc default, asc); items also carry updatedAt; projects belong
//     to the account (X-Sub-Account is validated but does not filter them).
//   - GET /sub-accounts returns {"items","total"} in creation order; GET /account returns
//     {"id","name","subAccount"?,"balance":{"available","pending","blocked","currency"}} for the wallet of
//     X-Sub-Account (pending is always 0: no money is ever "pending" in the emulator).
//   - GET /balance-blocks lists the wallet's blocks, newest first; an unknown status is 400.
//   - POST /sub-accounts answers 201; name is required; a quota of 0 in the fixture means no limit.
//
// Money and states:
//   - Statement lines are transactions with status completed and paymentMethod pix; debits are negative:
//     the fee (type fee, -fee, "Taxa PIX da cobrança <id>"), split legs (internal_transfer, the spec's
//     descriptions), refunds (type refund, -amount), withdrawals (type withdrawal, -amount).
//   - Payment: the charge becomes completed with paidAt, an e2eId "E"+ISPB(99990001)+yyyyMMddHHmm+11
//     alphanumerics (32 chars), counterpart name and document (digits only); the fee in force at payment
//     is debited; legs are served with api.SettleSplit(legs, gross-fee). payment_completed carries
//     split (legs actually paid, zero legs omitted, key absent when nothing was distributed) and also
//     feeAmount (the fee charged), e2eId, paidAt, counterpartName/Document. Split destinations get no
//     event of their own; a split item naming the main account says "principal".
//   - CNPJ payer (14 digits) on an account with block_cnpj_payers: status failed, failureReason,
//     blockedDeposit {reason cnpj_payer_not_allowed, refund pending}, e2eId of the received deposit, no
//     paidAt, no credit, no fee, no split; payment_failed. BlockedRefundDelay (5 s, scaled by
//     WithWebhookScale) later the refund becomes confirmed with an e2eId starting with "D" and settledAt;
//     no further event is sent (read the transaction).
//   - Expiry (timer at expiresAt on the server clock, or POST .../expire): status cancelled, updatedAt set,
//     pixCopyPaste and expiresAt no longer shown, payment_expired, no split. Paying or expiring a charge
//     that is not pending is 409.
//   - Refund (POST .../refund): only completed payments; default amount is what is left; partial refunds
//     allowed until the total is refunded (then 409). A refund transaction debits the originating wallet
//     only (it may go negative). The refund fee is 0.00 (feeAmount is sent as 0.00); netAmount = amount.
//     The charge keeps status completed. refund_completed carries transactionId (the charge),
//     refundTransactionId, amount, netAmount, feeAmount, e2eId.
//   - Balance blocks: created awaiting_response on a completed payment (default amount: the payment's),
//     moving the amount from available to blocked of the payment's wallet (balance_block_created).
//     Transitions: awaiting_response → defended | approved | rejected; defended → approved | rejected;
//     others are 409. approved: the blocked money leaves (returned to the payer; balance_block_approved);
//     rejected: it returns to available (balance_block_rejected); defended sends no event.
//     referenceNumber is "MED-|JUD-|ADM-" + date + 6 digits.
//   - Withdrawals (simulated; the spec does not specify their endpoint): at most the available balance;
//     completed debits (withdrawal_completed); failed does not (withdrawal_failed); reversed debits then
//     returns the money and ends failed (withdrawal_completed then withdrawal_reversed).
//   - The fee is per account (sub-accounts use their account's); PUT /_sandbox/fee changes it for
//     validation of new charges and for every later settlement.
//
// Webhooks:
//   - Payload: a flat JSON object (see api.Event) with eventId, event, createdAt, subAccount (absent for the
//     main account), transactionId, externalReference, status, amount and the event's specifics.
//     Headers: X-Service-Signature: sha256=<hex HMAC-SHA256(endpoint secret, raw body)>,
//     X-Service-Event-Id: <eventId>, Content-Type: application/json.
//   - Endpoints are registered per account with POST /_sandbox/webhook-endpoints (at most 50; the secret,
//     "whsec_" + 48 hex, is shown only in that reply). An event of a sub-account goes to that
//     sub-account's endpoints, or, when it has none, to the main account's; main-account events go to
//     the main account's endpoints. Every endpoint receives the same body and eventId.
//   - Delivery is asynchronous (4 workers, queue of 10 000, never blocking an API call) and in order per
//     endpoint (one attempt in flight per endpoint; a retry may land after later events): 5 attempts,
//     waits of 2, 4, 8, 16 s (capped at 30 s), multiplied by WithWebhookScale, on the server clock;
//     2xx is success, anything else (including 3xx: redirects are not followed) is a failure; 5 s timeout
//     per attempt; no proxy. The last 10 000 deliveries are kept for GET /_sandbox/webhook-deliveries.
//
// Faults (PUT /_sandbox/faults) apply to API endpoints except POST /auth; control endpoints are never
// affected. dropResponseAfterCommit hijacks and closes the connection after the handler ran;
// error500 answers 500 InternalError without running the handler; latencyMs waits first.
//
// Fixture additions to the keys of the issue: accounts.city (merchant city in PIX codes, default
// SAO PAULO), accounts.charges (seeded charges: wallet, amount, description, external_reference, state
// pending|paid|expired|blocked|refunded, payer_name, payer_document, age, expires_in, split, metadata) and
// the keys of accounts.balance_blocks (charge = a seeded charge's external_reference, amount, status,
// block_type, reason, resolution_reason, age). psp_credentials.enabled, active and out_capacity are
// booleans defaulting to true. Seeds are placed relative to the clock at New.
//
// Limits of the emulator: transactions are kept for the life of the process (no eviction); there are
// no rate limits, no transaction-value limits (as the spec says for sandbox) and no withdrawal API.
package sandbox
