package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// CreatePix creates a PIX charge (POST /pix). It always sends an Idempotency-Key (generated
// before the first attempt unless given) and retries with the same key and the same body bytes.
// When the outcome is unknown (some attempt failed without a 4xx refusal) the error carries the
// key: see IdempotencyKeyOf. A refusal (including a 422 idempotency conflict) is returned as is.
func (c *Client) CreatePix(ctx context.Context, req *CreatePixRequest, opts ...RequestOption) (*PixCharge, error) {
	if req == nil {
		return nil, invalid("body", "the charge request is missing")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	if ps := CheckCreatePix(req); len(ps) > 0 {
		return nil, &ValidationError{Problems: ps}
	}
	if ro.IdempotencyKey == "" {
		ro.IdempotencyKey = NewIdempotencyKey()
	}
	var out PixCharge
	call := &apiRequest{method: http.MethodPost, path: "/pix", body: req, out: &out, opts: ro}
	if err := c.call(ctx, call); err != nil {
		if call.uncertain {
			return nil, &outcomeError{key: ro.IdempotencyKey, err: err}
		}
		return nil, err // every attempt was refused unprocessed: no charge exists for this key
	}
	return &out, nil
}

// outcomeError is a create that may or may not have happened.
type outcomeError struct {
	key string
	err error
}

func (e *outcomeError) Error() string {
	return e.err.Error() + " (the charge may exist: Idempotency-Key " + e.key + ")"
}

func (e *outcomeError) Unwrap() error { return e.err }

// IdempotencyKeyOf returns the Idempotency-Key of a CreatePix call whose outcome is unknown
// (network failure, timeout, 5xx, cancellation); retry with it or look it up with GetTransaction.
func IdempotencyKeyOf(err error) (string, bool) {
	var oe *outcomeError
	if errors.As(err, &oe) {
		return oe.key, true
	}
	return "", false
}

// GetTransaction reads one transaction (GET /transactions/{id}) by id, externalReference or Idempotency-Key.
func (c *Client) GetTransaction(ctx context.Context, idOrRefOrKey string, opts ...RequestOption) (*Transaction, error) {
	if idOrRefOrKey == "" {
		return nil, invalid("id", "transaction id, externalReference or idempotency key is required")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	var out Transaction
	path := "/transactions/" + escapeSegment(idOrRefOrKey)
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: path, out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}

// escapeSegment escapes s as one path segment, including the dot segments "." and "..".
func escapeSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// CreateSubAccount creates a sub-account on the main account (POST /sub-accounts, never X-Sub-Account).
// It is sent once: without an idempotency key a repeat could create a second wallet.
func (c *Client) CreateSubAccount(ctx context.Context, req *CreateSubAccountRequest) (*SubAccount, error) {
	if req == nil {
		return nil, invalid("body", "the sub-account request is missing")
	}
	var ps []FieldProblem
	if err := ValidateSubAccountRef(req.Reference); err != nil {
		ps = append(ps, FieldProblem{FieldReference, "reference: " + err.Error()})
	}
	if n := len([]rune(req.Name)); n > MaxSubAccountName {
		ps = append(ps, FieldProblem{FieldName, "name must be shorter than or equal to 255 characters"})
	}
	if ps != nil {
		return nil, &ValidationError{Problems: ps}
	}
	var out SubAccount
	if err := c.call(ctx, &apiRequest{method: http.MethodPost, path: pathSubAccounts, body: req, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListSubAccounts lists the main account's sub-accounts (GET /sub-accounts; shape assumed, a bare
// array or an object with items or data).
func (c *Client) ListSubAccounts(ctx context.Context) ([]SubAccount, error) {
	var raw json.RawMessage
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: pathSubAccounts, out: &raw}); err != nil {
		return nil, err
	}
	list, err := decodeSubAccounts(raw)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", pathSubAccounts, err)
	}
	return list, nil
}

func decodeSubAccounts(raw json.RawMessage) ([]SubAccount, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var list []SubAccount
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("decoding sub-account list: %w", err)
		}
		return list, nil
	}
	var page struct {
		Items *[]SubAccount `json:"items"`
		Data  *[]SubAccount `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("decoding sub-account list: %w", err)
	}
	switch {
	case page.Items != nil:
		return *page.Items, nil
	case page.Data != nil:
		return *page.Data, nil
	}
	return nil, errors.New("sub-account list has neither items nor data")
}

// ListBalanceBlocks lists balance blocks (GET /balance-blocks); an empty status lists all.
func (c *Client) ListBalanceBlocks(ctx context.Context, status BlockStatus, opts ...RequestOption) (*BalanceBlockList, error) {
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	var q url.Values
	if status != "" {
		q = url.Values{"status": {string(status)}}
	}
	var out BalanceBlockList
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: "/balance-blocks", query: q, out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ProjectQuery selects a page of GET /projects; zero values are not sent (the service's defaults apply).
type ProjectQuery struct {
	// Page is the 1-based page number; Limit the page size, 1 to 100.
	Page, Limit int
	// SortBy is createdAt, updatedAt or name; SortOrder is asc or desc.
	SortBy, SortOrder string
}

// Project sort fields and orders from the spec.
const (
	SortByCreatedAt = "createdAt"
	SortByUpdatedAt = "updatedAt"
	SortByName      = "name"
	SortAsc         = "asc"
	SortDesc        = "desc"
)

// values checks q against the spec and returns its query parameters.
func (q ProjectQuery) values() (url.Values, error) {
	var ps []FieldProblem
	v := url.Values{}
	switch {
	case q.Page < 0:
		ps = append(ps, FieldProblem{"page", "page must not be less than 1"})
	case q.Page > 0:
		v.Set("page", strconv.Itoa(q.Page))
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxProjectPageSize:
		ps = append(ps, FieldProblem{"limit", fmt.Sprintf("limit must be between %d and %d", MinProjectPageSize, MaxProjectPageSize)})
	case q.Limit > 0:
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	switch q.SortBy {
	case "":
	case SortByCreatedAt, SortByUpdatedAt, SortByName:
		v.Set("sortBy", q.SortBy)
	default:
		ps = append(ps, FieldProblem{"sortBy", "sortBy must be one of createdAt, updatedAt, name"})
	}
	switch q.SortOrder {
	case "":
	case SortAsc, SortDesc:
		v.Set("sortOrder", q.SortOrder)
	default:
		ps = append(ps, FieldProblem{"sortOrder", "sortOrder must be asc or desc"})
	}
	if ps != nil {
		return nil, &ValidationError{Problems: ps}
	}
	return v, nil
}

// ListProjects returns a page of projects (GET /projects?page=&limit=&sortBy=&sortOrder=).
func (c *Client) ListProjects(ctx context.Context, q ProjectQuery, opts ...RequestOption) (*ProjectList, error) {
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	vals, err := q.values()
	if err != nil {
		return nil, err
	}
	var out ProjectList
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: "/projects", query: vals, out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAccount reads account data and balance (GET /account; shape assumed, decoded tolerantly).
func (c *Client) GetAccount(ctx context.Context, opts ...RequestOption) (*Account, error) {
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: "/account", out: &raw, opts: ro}); err != nil {
		return nil, err
	}
	acc, err := decodeAccount(raw)
	if err != nil {
		return nil, fmt.Errorf("GET /account: %w", err)
	}
	return acc, nil
}

// decodeAccount reads the assumed account shape; balance may be an object, a bare number
// (the available balance) or missing, and figures at the top level fill what balance lacks.
func decodeAccount(raw json.RawMessage) (*Account, error) {
	var doc struct {
		ID         flexString      `json:"id"`
		Name       flexString      `json:"name"`
		SubAccount flexString      `json:"subAccount"`
		Balance    json.RawMessage `json:"balance"`
		AccountBalance
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding account: %w", err)
	}
	acc := &Account{ID: string(doc.ID), Name: string(doc.Name), SubAccount: string(doc.SubAccount)}
	b := bytes.TrimSpace(doc.Balance)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
	case b[0] == '{':
		if err := json.Unmarshal(b, &acc.Balance); err != nil {
			return nil, fmt.Errorf("decoding account balance: %w", err)
		}
	default:
		var m Money
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("decoding account balance: %w", err)
		}
		acc.Balance.Available = &m
	}
	if acc.Balance.Available == nil {
		acc.Balance.Available = doc.Available
	}
	if acc.Balance.Pending == nil {
		acc.Balance.Pending = doc.Pending
	}
	if acc.Balance.Blocked == nil {
		acc.Balance.Blocked = doc.Blocked
	}
	if acc.Balance.Currency == "" {
		acc.Balance.Currency = doc.Currency
	}
	return acc, nil
}

// flexString accepts a JSON string or number (ids are sometimes numeric) and ignores other kinds.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch {
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		*f = flexString(b)
	}
	return nil
}
