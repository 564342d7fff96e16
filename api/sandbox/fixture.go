package sandbox

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"pixdash/api"
	"pixdash/api/brdoc"
)

//go:embed default.toml
var defaultFixtureTOML []byte

// Fixture describes the accounts the emulator starts with.
type Fixture struct {
	Accounts []AccountFixture `toml:"accounts"`
	// Faults are in force from the start ([faults]; keys as PUT /_sandbox/faults, in snake_case).
	Faults Faults `toml:"faults"`
}

// AccountFixture is one merchant account ([[accounts]]): its settings, credentials, wallets and history.
type AccountFixture struct {
	Name            string `toml:"name"`
	Environment     string `toml:"environment"`    // "sandbox" or "production"
	City            string `toml:"city"`           // merchant city in PIX codes; default "SAO PAULO"
	PixFee          string `toml:"pix_fee"`        // fixed BRL fee per PIX charge, e.g. "0.99"
	WithdrawalFee   string `toml:"withdrawal_fee"` // fixed BRL fee per PIX withdrawal; default the PIX fee
	Promotional     string `toml:"promotional"`    // promotional credit of the main wallet, e.g. "10.00"; default 0
	BlockCNPJPayers bool   `toml:"block_cnpj_payers"`
	SelfRouting     bool   `toml:"self_routing"`      // institution choice (pspCredentialId) enabled
	SubAccountQuota int    `toml:"sub_account_quota"` // maximum sub-accounts; 0 means no limit

	Credentials    []CredentialFixture    `toml:"credentials"`
	SubAccounts    []SubAccountFixture    `toml:"sub_accounts"`
	Projects       []ProjectFixture       `toml:"projects"`
	PSPCredentials []PSPCredentialFixture `toml:"psp_credentials"`
	BalanceBlocks  []BalanceBlockFixture  `toml:"balance_blocks"`
	Charges        []ChargeFixture        `toml:"charges"`
	// WebhookEndpoints are registered at start with their given secrets ([[accounts.webhook_endpoints]]).
	WebhookEndpoints []WebhookEndpointFixture `toml:"webhook_endpoints"`
}

// WebhookEndpointFixture is a webhook endpoint with a fixed signing secret, so that a dashboard
// configured with that secret (webhook.secret_env) receives events from every run.
type WebhookEndpointFixture struct {
	URL        string     `toml:"url"`
	SubAccount string     `toml:"sub_account"` // reference, or "" / "principal" for the main account
	Secret     api.Secret `toml:"secret"`
}

// CredentialFixture is an API credential of an account ([[accounts.credentials]]).
type CredentialFixture struct {
	ClientID         string     `toml:"client_id"`
	ClientSecret     api.Secret `toml:"client_secret"`
	Permissions      []string   `toml:"permissions"`
	SubAccountAccess bool       `toml:"sub_account_access"`
	IPAllowlist      []string   `toml:"ip_allowlist"` // IPs or CIDRs; empty allows any
	Revoked          bool       `toml:"revoked"`
}

// SubAccountFixture is a sub-account ([[accounts.sub_accounts]]).
type SubAccountFixture struct {
	Reference string `toml:"reference"`
	Name      string `toml:"name"`
	Status    string `toml:"status"` // "approved" (default), "active" or "suspended"
	// Promotional is the wallet's promotional credit, e.g. "10.00"; default 0.
	Promotional string `toml:"promotional"`
}

// ProjectFixture is a project ([[accounts.projects]]).
type ProjectFixture struct {
	Name        string `toml:"name"`
	Color       string `toml:"color"`
	Description string `toml:"description"`
	LogoURL     string `toml:"logo_url"` // http(s) URL
}

// PSPCredentialFixture is a payment institution linked to the account ([[accounts.psp_credentials]]).
// Enabled, Active and OutCapacity default to true when omitted.
type PSPCredentialFixture struct {
	ID          string `toml:"id"`
	Name        string `toml:"name"`
	Enabled     *bool  `toml:"enabled"`
	Active      *bool  `toml:"active"`
	OutCapacity *bool  `toml:"out_capacity"`
	Down        bool   `toml:"down"` // a pinned charge gets 500 Payment service temporarily unavailable
}

// BalanceBlockFixture seeds a balance block on a seeded charge ([[accounts.balance_blocks]]).
type BalanceBlockFixture struct {
	Charge           string `toml:"charge"` // external_reference of a seeded charge of the account
	Amount           string `toml:"amount"` // default: the charge's amount
	Status           string `toml:"status"` // default awaiting_response
	BlockType        string `toml:"block_type"`
	Reason           string `toml:"reason"`
	ResolutionReason string `toml:"resolution_reason"`
	Age              string `toml:"age"` // how long before start the block was created
}

// ChargeFixture seeds a charge and what happened to it ([[accounts.charges]]).
type ChargeFixture struct {
	Wallet            string         `toml:"wallet"` // sub-account reference or "principal" (default)
	Amount            string         `toml:"amount"`
	Description       string         `toml:"description"`
	ExternalReference string         `toml:"external_reference"`
	State             string         `toml:"state"` // pending, paid, expired, blocked or refunded
	PayerName         string         `toml:"payer_name"`
	PayerDocument     string         `toml:"payer_document"`
	Age               string         `toml:"age"`        // how long before start the charge was created
	ExpiresIn         int            `toml:"expires_in"` // seconds; default 86400
	Split             []SplitSeed    `toml:"split"`
	Metadata          map[string]any `toml:"metadata"`
}

// SplitSeed is one leg of a seeded charge's split.
type SplitSeed struct {
	SubAccount string `toml:"sub_account"`
	Amount     string `toml:"amount"`
}

// Seed charge states.
const (
	SeedPending  = "pending"
	SeedPaid     = "paid"
	SeedExpired  = "expired"
	SeedBlocked  = "blocked"
	SeedRefunded = "refunded"
)

// Permission names from the spec.
var knownPermissions = map[string]bool{
	"FULL_ACCESS": true, "PIX:WRITE": true, "PROJECT:WRITE": true, "PROJECT:READ": true,
	"TRANSACTION:READ": true, "WITHDRAWAL:WRITE": true, "METRICS:READ": true, "ACCOUNT:READ": true,
	"SUBACCOUNT:WRITE": true, "SUBACCOUNT:READ": true, "BALANCE_BLOCK:READ": true,
}

var hexColorRE = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// DefaultFixtureTOML returns the built-in fixture's TOML text.
func DefaultFixtureTOML() []byte { return bytes.Clone(defaultFixtureTOML) }

// DefaultFixture returns the built-in fixture: a sandbox and a production account with demo credentials.
func DefaultFixture() *Fixture {
	fx, err := ParseFixture(defaultFixtureTOML)
	if err != nil {
		// The embedded file is tested; reaching this is a build defect, reported without panicking.
		return &Fixture{}
	}
	return fx
}

// ParseFixture decodes and validates fixture TOML; unknown keys are errors naming the key.
func ParseFixture(data []byte) (*Fixture, error) {
	var fx Fixture
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&fx)
	if err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, 0, len(und))
		for _, k := range und {
			keys = append(keys, k.String())
		}
		return nil, fmt.Errorf("fixture: unknown key %s", strings.Join(keys, ", "))
	}
	if err := fx.Validate(); err != nil {
		return nil, err
	}
	return &fx, nil
}

// Validate reports every problem of the fixture (bad values, duplicates, dangling references).
func (f *Fixture) Validate() error {
	if f == nil {
		return errors.New("fixture: nil")
	}
	var errs []error
	ids := map[string]bool{}
	for i := range f.Accounts {
		a := &f.Accounts[i]
		where := fmt.Sprintf("fixture: accounts[%d]", i)
		if err := checkAccount(a); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		env := api.Environment(a.Environment)
		for j, c := range a.Credentials {
			if err := checkCredential(c, env); err != nil {
				errs = append(errs, fmt.Errorf("%s.credentials[%d]: %w", where, j, err))
				continue
			}
			if ids[c.ClientID] {
				errs = append(errs, fmt.Errorf("%s.credentials[%d]: client_id %q appears twice", where, j, c.ClientID))
			}
			ids[c.ClientID] = true
		}
		refs := map[string]bool{}
		for j, sa := range a.SubAccounts {
			if err := checkSubAccount(sa); err != nil {
				errs = append(errs, fmt.Errorf("%s.sub_accounts[%d]: %w", where, j, err))
				continue
			}
			if refs[sa.Reference] {
				errs = append(errs, fmt.Errorf("%s.sub_accounts[%d]: reference %q appears twice", where, j, sa.Reference))
			}
			refs[sa.Reference] = true
		}
		for j, p := range a.Projects {
			if err := checkProject(p); err != nil {
				errs = append(errs, fmt.Errorf("%s.projects[%d]: %w", where, j, err))
			}
		}
		psps := map[string]bool{}
		for j, p := range a.PSPCredentials {
			if err := checkPSP(p); err != nil {
				errs = append(errs, fmt.Errorf("%s.psp_credentials[%d]: %w", where, j, err))
				continue
			}
			if psps[strings.ToLower(p.ID)] {
				errs = append(errs, fmt.Errorf("%s.psp_credentials[%d]: id %q appears twice", where, j, p.ID))
			}
			psps[strings.ToLower(p.ID)] = true
		}
		extRefs := map[string]bool{}
		for j, c := range a.Charges {
			if err := checkCharge(c, refs); err != nil {
				errs = append(errs, fmt.Errorf("%s.charges[%d]: %w", where, j, err))
				continue
			}
			if c.ExternalReference != "" {
				extRefs[c.ExternalReference] = true
			}
		}
		for j, b := range a.BalanceBlocks {
			if err := checkBlockSeed(b, extRefs); err != nil {
				errs = append(errs, fmt.Errorf("%s.balance_blocks[%d]: %w", where, j, err))
			}
		}
		for j, e := range a.WebhookEndpoints {
			if err := checkEndpoint(e, refs); err != nil {
				errs = append(errs, fmt.Errorf("%s.webhook_endpoints[%d]: %w", where, j, err))
			}
		}
	}
	if msg := f.Faults.check(); msg != "" {
		errs = append(errs, fmt.Errorf("fixture: faults: %s", msg))
	}
	return errors.Join(errs...)
}

func checkAccount(a *AccountFixture) error {
	if strings.TrimSpace(a.Name) == "" {
		return errors.New("name is required")
	}
	switch api.Environment(a.Environment) {
	case api.Sandbox, api.Production:
	default:
		return fmt.Errorf("environment %q must be sandbox or production", a.Environment)
	}
	if a.PixFee != "" {
		fee, err := api.ParseDecimal(a.PixFee)
		if err != nil || fee < 0 {
			return fmt.Errorf("pix_fee %q must be a non-negative amount with at most 2 decimals", a.PixFee)
		}
	}
	for _, f := range []struct{ key, v string }{{"withdrawal_fee", a.WithdrawalFee}, {"promotional", a.Promotional}} {
		if f.v == "" {
			continue
		}
		if m, err := api.ParseDecimal(f.v); err != nil || m < 0 {
			return fmt.Errorf("%s %q must be a non-negative amount with at most 2 decimals", f.key, f.v)
		}
	}
	if a.SubAccountQuota < 0 {
		return fmt.Errorf("sub_account_quota %d must not be negative", a.SubAccountQuota)
	}
	return nil
}

func checkCredential(c CredentialFixture, env api.Environment) error {
	got, err := api.EnvironmentOf(c.ClientID)
	if err != nil {
		return err
	}
	if got != env {
		return fmt.Errorf("client_id %q is a %s credential in a %s account", c.ClientID, got, env)
	}
	if c.ClientSecret.Reveal() == "" {
		return errors.New("client_secret is required")
	}
	if len(c.Permissions) == 0 {
		return errors.New("permissions must list at least one permission")
	}
	for _, p := range c.Permissions {
		if !knownPermissions[p] {
			return fmt.Errorf("unknown permission %q", p)
		}
	}
	for _, ip := range c.IPAllowlist {
		if _, err := parseAllowEntry(ip); err != nil {
			return err
		}
	}
	return nil
}

// parseAllowEntry reads an allow-list entry: an IP or a CIDR.
func parseAllowEntry(s string) (*net.IPNet, error) {
	if _, n, err := net.ParseCIDR(s); err == nil {
		return n, nil
	}
	ip := net.ParseIP(s)
	if ip == nil {
		return nil, fmt.Errorf("ip_allowlist entry %q is neither an IP nor a CIDR", s)
	}
	bits := 128
	if ip4 := ip.To4(); ip4 != nil {
		ip, bits = ip4, 32
	}
	return &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
}

func checkSubAccount(sa SubAccountFixture) error {
	if err := api.ValidateSubAccountRef(sa.Reference); err != nil {
		return err
	}
	if n := len([]rune(sa.Name)); n == 0 || n > api.MaxSubAccountName {
		return fmt.Errorf("name must have 1 to %d characters", api.MaxSubAccountName)
	}
	switch api.SubAccountStatus(sa.Status) {
	case "", api.SubAccountApproved, api.SubAccountActive, api.SubAccountSuspended:
	default:
		return fmt.Errorf("status %q must be approved, active or suspended", sa.Status)
	}
	if sa.Promotional != "" {
		if m, err := api.ParseDecimal(sa.Promotional); err != nil || m < 0 {
			return fmt.Errorf("promotional %q must be a non-negative amount with at most 2 decimals", sa.Promotional)
		}
	}
	return nil
}

func checkProject(p ProjectFixture) error {
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("name is required")
	}
	if p.Color != "" && !hexColorRE.MatchString(p.Color) {
		return fmt.Errorf("color %q must be a hex color like #1A2B3C", p.Color)
	}
	if p.LogoURL != "" && !validHookURL(p.LogoURL) {
		return fmt.Errorf("logo_url %q must be an absolute http or https URL", p.LogoURL)
	}
	return nil
}

func checkPSP(p PSPCredentialFixture) error {
	if !api.IsUUID(p.ID) {
		return fmt.Errorf("id %q must be a UUID", p.ID)
	}
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("name is required")
	}
	return nil
}

func checkCharge(c ChargeFixture, refs map[string]bool) error {
	if c.Wallet != "" && c.Wallet != api.WalletPrincipal && !refs[c.Wallet] {
		return fmt.Errorf("wallet %q is not a sub-account of this account", c.Wallet)
	}
	amt, err := api.ParseDecimal(c.Amount)
	if err != nil || amt < api.MinChargeAmount {
		return fmt.Errorf("amount %q must be at least 1.00 with at most 2 decimals", c.Amount)
	}
	switch c.State {
	case SeedPending, SeedPaid, SeedExpired, SeedBlocked, SeedRefunded:
	default:
		return fmt.Errorf("state %q must be pending, paid, expired, blocked or refunded", c.State)
	}
	kind := brdoc.Kind("")
	if c.PayerDocument != "" {
		k, _, err := brdoc.Document(c.PayerDocument)
		if err != nil {
			return fmt.Errorf("payer_document %q must be a CPF (11 digits) or a CNPJ (14 characters): %w", c.PayerDocument, err)
		}
		kind = k
	}
	if c.State == SeedBlocked && kind != brdoc.CNPJ {
		return errors.New("a blocked charge needs a CNPJ payer_document")
	}
	if _, err := parseAge(c.Age); err != nil {
		return err
	}
	if c.ExpiresIn != 0 && (c.ExpiresIn < api.MinExpiresIn || c.ExpiresIn > api.MaxExpiresIn) {
		return fmt.Errorf("expires_in %d must be 300 to 604800", c.ExpiresIn)
	}
	if len([]rune(c.Description)) > api.MaxDescription || len([]rune(c.ExternalReference)) > api.MaxExternalRef {
		return errors.New("description and external_reference are limited to 255 characters")
	}
	for k, s := range c.Split {
		if s.SubAccount != api.WalletPrincipal && !refs[s.SubAccount] {
			return fmt.Errorf("split[%d]: sub_account %q is not a sub-account of this account", k, s.SubAccount)
		}
		if a, err := api.ParseDecimal(s.Amount); err != nil || a < api.MinSplitAmount {
			return fmt.Errorf("split[%d]: amount %q must be at least 0.01 with at most 2 decimals", k, s.Amount)
		}
	}
	return nil
}

func checkBlockSeed(b BalanceBlockFixture, extRefs map[string]bool) error {
	if !extRefs[b.Charge] {
		return fmt.Errorf("charge %q is not the external_reference of a seeded charge", b.Charge)
	}
	if b.Amount != "" {
		if a, err := api.ParseDecimal(b.Amount); err != nil || a < api.Centavo {
			return fmt.Errorf("amount %q must be at least 0.01 with at most 2 decimals", b.Amount)
		}
	}
	if b.Status != "" && !api.BlockStatus(b.Status).Known() {
		return fmt.Errorf("status %q must be awaiting_response, defended, approved or rejected", b.Status)
	}
	if b.BlockType != "" && !knownBlockType(b.BlockType) {
		return fmt.Errorf("block_type %q must be med, judicial or administrative", b.BlockType)
	}
	if _, err := parseAge(b.Age); err != nil {
		return err
	}
	return nil
}

func knownBlockType(t string) bool {
	return t == api.BlockTypeMED || t == api.BlockTypeJudicial || t == api.BlockTypeAdministrative
}

// parseAge reads a seed's age ("" is zero).
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("age %q must be a non-negative Go duration such as 90m or 26h", s)
	}
	return d, nil
}
