package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
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
			return nil, &outcomeError{key: ro.IdempotencyKey, what: "charge", err: err}
		}
		return nil, err // every attempt was refused unprocessed: no charge exists for this key
	}
	return &out, nil
}

// outcomeError is a create that may or may not have happened.
type outcomeError struct {
	key  string
	what string // "charge" or "withdrawal"
	err  error
}

func (e *outcomeError) Error() string {
	return e.err.Error() + " (the " + e.what + " may exist: Idempotency-Key " + e.key + ")"
}

func (e *outcomeError) Unwrap() error { return e.err }

// IdempotencyKeyOf returns the Idempotency-Key of a CreatePix or CreateWithdrawal call whose outcome is unknown
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

// ListSubAccounts lists the main account's sub-accounts (GET /sub-accounts, {"data":[...]}).
func (c *Client) ListSubAccounts(ctx context.Context) ([]SubAccount, error) {
	var raw json.RawMessage
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: pathSubAccounts, out: &raw}); err != nil {
		return nil, err
	}
	list, err := DecodeSubAccounts(raw)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", pathSubAccounts, err)
	}
	return list, nil
}

// DecodeSubAccounts reads the body of GET /sub-accounts: an object whose data member lists
// the sub-accounts.
func DecodeSubAccounts(raw []byte) ([]SubAccount, error) {
	var page struct {
		Data *[]SubAccount `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("decoding sub-account list: %w", err)
	}
	if page.Data == nil {
		return nil, errors.New("sub-account list has no data member")
	}
	return *page.Data, nil
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

// ListAllProjects pages through GET /projects (limit 100, createdAt desc) up to the last page
// the service reports; it stops after maxProjectPages pages so a lying totalPages cannot loop.
func (c *Client) ListAllProjects(ctx context.Context, opts ...RequestOption) ([]Project, error) {
	var all []Project
	for page := 1; page <= maxProjectPages; page++ {
		list, err := c.ListProjects(ctx, ProjectQuery{Page: page, Limit: MaxProjectPageSize}, opts...)
		if err != nil {
			return nil, err
		}
		all = append(all, list.Items...)
		if page >= list.TotalPages || len(list.Items) == 0 {
			return all, nil
		}
	}
	return all, nil
}

// maxProjectPages bounds ListAllProjects (10,000 projects at 100 a page).
const maxProjectPages = 100

// GetProject reads one project (GET /projects/{id}).
func (c *Client) GetProject(ctx context.Context, id string, opts ...RequestOption) (*Project, error) {
	if id == "" {
		return nil, invalid("id", "project id is required")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	var out Project
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: "/projects/" + escapeSegment(id), out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateProject creates a project (POST /projects). It is sent once: the service takes no
// Idempotency-Key here, and a project that exists answers 409.
func (c *Client) CreateProject(ctx context.Context, req *CreateProjectRequest, opts ...RequestOption) (*Project, error) {
	if req == nil {
		return nil, invalid("body", "the project request is missing")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	if ps := CheckCreateProject(req); len(ps) > 0 {
		return nil, &ValidationError{Problems: ps}
	}
	var out Project
	if err := c.call(ctx, &apiRequest{method: http.MethodPost, path: "/projects", body: req, out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}

// hexColorRE is a CSS hex colour: #rgb or #rrggbb.
var hexColorRE = regexp.MustCompile(`^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$`)

// CheckCreateProject checks a POST /projects body before it is sent.
func CheckCreateProject(r *CreateProjectRequest) []FieldProblem {
	var ps []FieldProblem
	switch n := utf8.RuneCountInString(strings.TrimSpace(r.Name)); {
	case n == 0:
		ps = append(ps, FieldProblem{"name", "name should not be empty"})
	case utf8.RuneCountInString(r.Name) > MaxProjectName:
		ps = append(ps, FieldProblem{"name", "name must be shorter than or equal to 255 characters"})
	}
	if !hexColorRE.MatchString(r.Color) {
		ps = append(ps, FieldProblem{"color", "color must be a hexadecimal color such as #3B82F6"})
	}
	if r.LogoURL != "" {
		if u, err := url.Parse(r.LogoURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			ps = append(ps, FieldProblem{"logoUrl", "logoUrl must be a URL address"})
		}
	}
	return ps
}
