// Package api is the contract of the PIX payment service: exact Money in centavos, every
// resource and event type, the error envelope, the spec's limits and split rules, a Client
// with a self-refreshing token and idempotent retries, webhook verification and receiver,
// and the BR Code parser.
//
// Where the specification says "not shown", the decisions are listed in one place: the
// ASSUMPTIONS section of the repository's README.md, which names the file of each one.
package api
