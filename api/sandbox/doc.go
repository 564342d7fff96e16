// Package sandbox is a stateful emulator of the whole payment service: an http.Handler that serves
// the API under /v2 in the deployed service's wire format (pague.dev v2; the replay fixtures in
// api/testdata/pague hold its shapes), keeping every rule of the spec, with balances, statements,
// expiry, blocked deposits, balance blocks, refunds, withdrawals, projects and signed webhooks,
// plus control endpoints under /v2/_sandbox that play the payer, the payment institution and the
// back office.
//
// # API endpoints
//
//	POST /auth                         {"client_id","client_secret"}            200 token
//	POST /pix                          charge (amount and description required) 201 charge (Idempotency-Key)
//	GET  /transactions/{id}            id, externalReference or Idempotency-Key  200 transaction
//	POST /transactions/{id}/refund     {"reason"?}                               201 {"originalTransactionId","pspProvider","pspRefundTransactionId","status":"PENDING"}
//	POST /withdrawals                  see below                                 201 withdrawal (Idempotency-Key)
//	POST /sub-accounts                 {"reference","name"}                      201 sub-account (approved)
//	GET  /sub-accounts                                                           200 {"data":[...]}
//	GET  /account                                                                200 {"account":{"id","status"},"balance":{...}}
//	GET  /balance-blocks               ?status=                                  200 {"items","total"}
//	GET  /projects                     ?page&limit&sortBy&sortOrder              200 {"items","total","page","limit","totalPages"}
//	POST /projects                     {"name","color","description"?,"logoUrl"?} 201 project
//	GET  /projects/{id}                                                          200 project with updatedAt
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
//	POST /_sandbox/withdrawals/{id}/complete                                    200 withdrawal (pending only)
//	POST /_sandbox/withdrawals/{id}/fail        {"reason"?}                     200 withdrawal (pending only)
//	POST /_sandbox/withdrawals/{id}/reverse     {"reason"?}                     200 withdrawal (completed only)
//	PUT  /_sandbox/fee                          {"pixFee"?,"withdrawalFee"?}    200 {"pixFee","withdrawalFee"}
//	POST /_sandbox/webhook-endpoints            {"url","subAccount"?,"secret"?} 201 {"id","url","subAccount","secret","createdAt"}
//	                                            (200 with the endpoint already there for the same url, wallet and secret)
//	GET  /_sandbox/webhook-deliveries                                           200 {"items","total"}
//	GET  /_sandbox/wallets                                                      200 {"items","total"}
//	PUT  /_sandbox/faults                       Faults (see below)              200 Faults
//	GET  /_sandbox/faults                                                       200 Faults, with what is left of the bursts
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
//   - Envelope: {statusCode, error, message, details?, timestamp, traceId}; traceId is 32 lowercase hex
//     digits (also in the X-Trace-Id header). message is a string, or a list of strings when several
//     validation problems are found at once. Business codes travel in details.code only: SUB_ACCOUNT_*,
//     or VALIDATION_ERROR with details.field naming the first bad field (POST /pix, /withdrawals,
//     /projects, /sub-accounts, refund reason; a body that is not a JSON object has no details).
//     Institution-choice reasons in a top-level "reason" AND details.reason (the spec's field).
//     404: message "<Resource> not found", details {resource, id}; resource is Sub-account, Project,
//     Transaction, Withdrawal or Balance block. An unknown X-Sub-Account: 404 details
//     {code: SUB_ACCOUNT_NOT_FOUND, resource: Sub-account, id}. 409 details: {resource, field, value}
//     (plus code for sub-accounts).
//   - Envelope kinds beyond the spec's list: 405 MethodNotAllowed (with an Allow header),
//     413 PayloadTooLarge (bodies above 1 MiB), 422 UnprocessableEntity. Kinds keep the spec's spelling
//     (BadRequest, NotFound...).
//   - Validation messages follow the spec's examples ("amount must not be less than 1",
//     "description should not be empty", "split.0.amount must not be less than 0.01"), listed in the
//     order of the spec's body table; a number with more than 2 decimals is
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
//   - GET /projects: page (default 1), limit (default 20, the service's, 1..100), sortBy (createdAt default, updatedAt,
//     name — case-insensitive), sortOrder (desc default, asc); items also carry updatedAt; projects belong
//     to the account (X-Sub-Account is validated but does not filter them).
//   - GET /sub-accounts returns {"data":[{id,reference,name,status,createdAt}]} in creation order with
//     the stored status: POST /sub-accounts answers approved (the spec), the fixture may seed active
//     (how the service lists a working wallet) or suspended; approved and active are usable.
//   - GET /account (for the wallet of X-Sub-Account): account {id: the wallet's id, status: approved,
//     or suspended for a suspended sub-account}; balance {available, promotional, held, total} each
//     {amount: integer centavos, amountFormatted: reais as a JSON number in shortest form (150.75, 25,
//     0)}, currency BRL, updatedAt (last balance change, else the wallet's creation). held is the money
//     under balance blocks; promotional comes from the fixture (default 0) and is never spent;
//     total = available + promotional + held.
//   - POST /projects: name required (trimmed, at most 255) and unique in the account without regard to
//     case (409 Conflict, details {resource: Project, field: name, value}); color required (#rgb or
//     #rrggbb); description at most 255 (assumed); logoUrl an http(s) URL. 201 {id,name,color,createdAt,
//     description?,logoUrl?}. Projects belong to the account; X-Sub-Account is validated only.
//   - GET /balance-blocks lists the wallet's blocks, newest first; an unknown status is 400.
//   - POST /sub-accounts answers 201; name is required; a quota of 0 in the fixture means no limit.
//
// Money and states:
//   - Statement lines are transactions with status completed and paymentMethod pix; debits are negative:
//     the fee (type fee, -fee, "Taxa PIX da cobrança <id>"), split legs (internal_transfer, the spec's
//     descriptions), refunds (type refund, -amount), withdrawals (type withdrawal, -amount).
//   - Payment: the charge becomes completed with paidAt, an e2eId "E"+ISPB(99990001)+yyyyMMddHHmm+11
//     alphanumerics (32 chars), counterpart name and document (compact: digits, and upper-case letters for an alphanumeric CNPJ); the fee in force at payment
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
//   - Refund, POST /transactions/{id}/refund (permission assumed PIX:WRITE or FULL_ACCESS; the id
//     resolves in the wallet of X-Sub-Account as GET /transactions does): the whole remaining amount of a
//     completed payment; 400 "Transaction already refunded", 400 for anything but a completed payment,
//     400 "Insufficient balance" when amount + refund fee exceed the originator's spendable balance, 404
//     (resource Transaction) when unknown. The money leaves the originator only, at once, on a refund line
//     (type refund, -amount, status pending, reason in metadata); RefundConfirmDelay (3 s, scaled by
//     WithWebhookScale) later the line becomes completed with an e2eId starting with "D" and
//     refund_completed is sent. pspProvider is "sandbox". The charge keeps status completed.
//   - Control refund (POST /_sandbox/transactions/{id}/refund): partial amounts allowed until the total is
//     refunded (then 409), no balance check (the originator may go negative, spec split rule 11), confirmed
//     at once. The refund fee is 0.00 in both; netAmount = amount.
//   - Balance blocks: created awaiting_response on a completed payment (default amount: the payment's),
//     moving the amount from available to blocked of the payment's wallet (balance_block_created).
//     Transitions: awaiting_response → defended | approved | rejected; defended → approved | rejected;
//     others are 409. approved: the blocked money leaves (returned to the payer; balance_block_approved);
//     rejected: it returns to available (balance_block_rejected); defended sends no event.
//     referenceNumber is "MED-|JUD-|ADM-" + date + 6 digits.
//   - Withdrawals, POST /withdrawals (WITHDRAWAL:WRITE or FULL_ACCESS; Idempotency-Key as POST /pix, in
//     its own key space): pixKey, pixKeyType (cpf|cnpj|email|phone|random), holderName, holderDocument
//     (a CPF for cpf, a CNPJ for cnpj, numeric or alphanumeric, checked by api/brdoc with their check
//     digits; dots, dashes and slashes are dropped), holderDocumentType, exactly
//     one of amount (gross) and netAmount (at least 1 each), projectId? (404 Project when not the
//     account's; no default project), externalReference?. The fee is the account's withdrawal fee
//     (fixture withdrawal_fee, default pix_fee): with netAmount the gross is net + fee; with amount the
//     net is amount - fee, and an amount not above the fee is 400. The gross must fit the spendable
//     balance (available; open chargeback debt is already inside it) or 400 "Insufficient balance". It
//     leaves the wallet at once; the 201 body has status pending and null failureReason, pspReference,
//     processedAt (and projectId, externalReference when absent). Its transaction (same id, type
//     withdrawal, amount -gross, counterpart = holder) exists from creation, pending, and resolves by
//     id, externalReference or Idempotency-Key. WithdrawalDelay (3 s, scaled) later it completes
//     (processedAt, pspReference = the end-to-end id, withdrawal_completed) unless the control endpoints
//     force failed (money returned, withdrawal_failed with failureReason) or, after completion,
//     reversed (money returned, transaction failed, withdrawal_reversed).
//   - POST /_sandbox/withdrawals runs the same code with a fixed recipient and applies its outcome at once:
//     completed (withdrawal_completed), failed (withdrawal_failed, money returned), reversed
//     (withdrawal_completed then withdrawal_reversed, money returned, transaction failed).
//   - Fees are per account (sub-accounts use their account's); PUT /_sandbox/fee changes the PIX fee
//     for validation of new charges and for every later settlement, and the withdrawal fee for new
//     withdrawals.
//
// Webhooks:
//   - Payload: the service's envelope {"event","eventId","timestamp" (RFC 3339 UTC, milliseconds),
//     "subAccount" (only when the event belongs to a sub-account),"data"}. data of payment_* is {id,
//     transactionId (both the charge), externalReference?, status, amount, netAmount, feeAmount (the fee
//     charged: 0 for expired and failed, so netAmount = amount there), split? (legs actually paid),
//     blockedDeposit?, e2eId?, paidAt?, counterpartName?, counterpartDocument?, failureReason?}; of
//     refund_completed {id (the refund line), transactionId, originalTransactionId (the charge), amount,
//     netAmount, feeAmount, status, e2eId}; of withdrawal_* {id, withdrawalId, amount, feeAmount,
//     netAmount, status (completed|failed|reversed), failureReason?, externalReference?, pspReference?,
//     processedAt?}; of balance_block_* the block itself. Amounts are JSON numbers in reais with two
//     decimals (api.Money).
//   - Headers on every attempt: Content-Type: application/json; X-Pague-Signature and
//     X-Service-Signature (the spec's name), both sha256=<hex HMAC-SHA256(endpoint secret, raw body)>;
//     X-Pague-Timestamp: the attempt's time in epoch milliseconds on the emulator clock; X-Pague-Event:
//     the kind; X-Pague-Webhook-ID: the delivery id (the same on retries); X-Service-Event-Id: eventId.
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
// Faults (PUT /_sandbox/faults, or [faults] in the fixture) apply to API endpoints except POST /auth;
// control endpoints are never affected. latencyMs waits first; then status5xxBurst (the next N
// requests answer 500 InternalError) and status429Burst (the next N answer 429 TooManyRequests with
// Retry-After: retryAfterSeconds, default 1) refuse without running the handler, as does error500
// (a probability). dropReplyAfterCommit (the next N requests) and dropResponseAfterCommit (a
// probability) hijack and close the connection after a handler that succeeded (< 400) ran and the
// state was saved. redeliveryStorm sends each event delivered from then on N more times (same
// eventId, body and signature scheme; listed with redelivery true); outOfOrder serves each
// endpoint's waiting deliveries newest first.
//
// State (Open, pixdash sandbox --state FILE): one SQLite table entities(kind, id, data) with a JSON
// row per account, wallet, credential, webhook endpoint (with its secret), transaction, balance
// block, withdrawal and idempotency entry, and a meta row (the id generator's state, the token
// signing key, the transaction counter). After each request and each timer the rows that changed
// are written in one transaction, before the reply is sent (a failed save answers 500). At start a
// saved state is restored instead of the fixture, and the clock's work is armed again from the
// saved times (expiry, blocked-deposit returns, refund confirmations, withdrawal completion);
// deliveries under way and the delivery log are not kept, nor faults.
//
// Event log (WithEventLog, pixdash sandbox --log): one JSON line per API request (RequestLine:
// method, path, wallet, status, durationMs, traceId, dropped) and per delivery attempt
// (DeliveryLine: endpoint, url, event, eventId, attempt, status, the receiver's answer cleaned and
// cut at 200 characters, error, outcome). No header, body, token or secret is written.
//
// Fixture additions to the keys of the issue: accounts.withdrawal_fee (default pix_fee),
// accounts.promotional and accounts.sub_accounts.promotional (promotional credit, default 0),
// sub_accounts.status active, accounts.projects.logo_url, accounts.city (merchant city in PIX codes, default
// SAO PAULO), accounts.charges (seeded charges: wallet, amount, description, external_reference, state
// pending|paid|expired|blocked|refunded, payer_name, payer_document, age, expires_in, split, metadata) and
// the keys of accounts.balance_blocks (charge = a seeded charge's external_reference, amount, status,
// block_type, reason, resolution_reason, age). psp_credentials.enabled, active and out_capacity are
// booleans defaulting to true. Seeds are placed relative to the clock at New.
// accounts.webhook_endpoints (url, sub_account, secret of 16 to 255 printable ASCII characters)
// registers endpoints with fixed secrets, so a profile's webhook.secret_env works on every run.
//
// Limits of the emulator: transactions are kept for the life of the process (no eviction); there are
// no rate limits, no transaction-value limits (as the spec says for sandbox), no GET of a withdrawal
// by id (its transaction is read through GET /transactions/{id}) and no webhook-endpoint management
// API beyond the control endpoint.
package sandbox
