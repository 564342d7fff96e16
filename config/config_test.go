package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

const testFile = "/home/x/.config/pixdash/config.toml"

// profileDoc builds a [profiles.shop] table from lines, filling in valid base_url, client_id and
// client_secret_env unless lines set them; "-key" drops a default.
func profileDoc(lines ...string) string {
	set := map[string]bool{}
	var body []string
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "-"); ok {
			set[name] = true
			continue
		}
		k, _, _ := strings.Cut(l, "=")
		set[strings.TrimSpace(k)] = true
		body = append(body, l)
	}
	if set["client_secret_cmd"] || set["client_secret"] {
		set["client_secret_env"] = true
	}
	var b strings.Builder
	b.WriteString("[profiles.shop]\n")
	for _, d := range []string{`base_url = "https://api.example.com/v2"`, `client_id = "mp_test_abc123"`, `client_secret_env = "SHOP_SECRET"`} {
		k, _, _ := strings.Cut(d, "=")
		if !set[strings.TrimSpace(k)] {
			b.WriteString(d + "\n")
		}
	}
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// parseOne parses doc and returns its only profile, or the error.
func parseOne(t *testing.T, doc string, mode fs.FileMode) (*Profile, error) {
	t.Helper()
	cfg, err := Parse(testFile, []byte(doc), mode)
	if err != nil {
		if cfg != nil {
			t.Fatalf("Parse returned both a config and an error")
		}
		var ps Problems
		if !errors.As(err, &ps) || len(ps) == 0 {
			t.Fatalf("Parse error %T is not a non-empty Problems: %v", err, err)
		}
		return nil, err
	}
	if len(cfg.Profiles) != 1 {
		t.Fatalf("want 1 profile, got %d", len(cfg.Profiles))
	}
	return cfg.Profiles[0], nil
}

func TestProfileKeys(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		wantErr string // substring; "" means valid
		wantKey string // key the problem names, when wantErr is set
		check   func(*testing.T, *Profile)
	}{
		// base_url
		{name: "base_url https", lines: []string{`base_url = "https://api.example.com/v2"`}, check: func(t *testing.T, p *Profile) {
			if p.BaseURL != "https://api.example.com/v2" {
				t.Errorf("BaseURL = %q", p.BaseURL)
			}
		}},
		{name: "base_url trailing slash trimmed", lines: []string{`base_url = "https://api.example.com/v2/"`}, check: func(t *testing.T, p *Profile) {
			if p.BaseURL != "https://api.example.com/v2" {
				t.Errorf("BaseURL = %q", p.BaseURL)
			}
		}},
		{name: "base_url deeper path", lines: []string{`base_url = "https://example.com/api/pay/v2"`}},
		{name: "base_url https port", lines: []string{`base_url = "https://example.com:8443/v2"`}},
		{name: "base_url http 127.0.0.1", lines: []string{`base_url = "http://127.0.0.1:8080/v2"`}},
		{name: "base_url http 127.1.2.3", lines: []string{`base_url = "http://127.1.2.3:8080/v2"`}},
		{name: "base_url http localhost", lines: []string{`base_url = "http://localhost:8080/v2"`}},
		{name: "base_url http ::1", lines: []string{`base_url = "http://[::1]:8080/v2"`}},
		{name: "base_url http remote", lines: []string{`base_url = "http://api.example.com/v2"`}, wantErr: "plain http:// is allowed only for loopback hosts", wantKey: "profiles.shop.base_url"},
		{name: "base_url http 0.0.0.0", lines: []string{`base_url = "http://0.0.0.0:8080/v2"`}, wantErr: "https://", wantKey: "profiles.shop.base_url"},
		{name: "base_url http localhost lookalike", lines: []string{`base_url = "http://localhost.example.com/v2"`}, wantErr: "loopback", wantKey: "profiles.shop.base_url"},
		{name: "base_url v1", lines: []string{`base_url = "https://api.example.com/v1"`}, wantErr: "last path segment must be v2", wantKey: "profiles.shop.base_url"},
		{name: "base_url no path", lines: []string{`base_url = "https://api.example.com"`}, wantErr: "last path segment must be v2"},
		{name: "base_url v2 not last", lines: []string{`base_url = "https://api.example.com/v2/pix"`}, wantErr: "last path segment must be v2"},
		{name: "base_url v2x", lines: []string{`base_url = "https://api.example.com/v2x"`}, wantErr: "last path segment must be v2"},
		{name: "base_url relative", lines: []string{`base_url = "api.example.com/v2"`}, wantErr: "absolute URL"},
		{name: "base_url ftp", lines: []string{`base_url = "ftp://api.example.com/v2"`}, wantErr: "must start with https://"},
		{name: "base_url no host", lines: []string{`base_url = "https:///v2"`}, wantErr: "has no host"},
		{name: "base_url userinfo", lines: []string{`base_url = "https://me:pw@api.example.com/v2"`}, wantErr: "user:password@"},
		{name: "base_url query", lines: []string{`base_url = "https://api.example.com/v2?x=1"`}, wantErr: "query"},
		{name: "base_url fragment", lines: []string{`base_url = "https://api.example.com/v2#x"`}, wantErr: "fragment"},
		{name: "base_url space", lines: []string{`base_url = " https://api.example.com/v2"`}, wantErr: "spaces"},
		{name: "base_url empty", lines: []string{`base_url = ""`}, wantErr: "is empty"},
		{name: "base_url number", lines: []string{`base_url = 2`}, wantErr: "must be a string in double quotes, not an integer", wantKey: "profiles.shop.base_url"},
		{name: "base_url missing", lines: []string{"-base_url"}, wantErr: "missing base_url", wantKey: "profiles.shop"},

		// client_id and environment
		{name: "client_id sandbox", lines: []string{`client_id = "mp_test_abc"`}, check: func(t *testing.T, p *Profile) {
			if p.Environment != api.Sandbox || !p.IsSandbox() || p.ClientID != "mp_test_abc" {
				t.Errorf("got %q %q", p.Environment, p.ClientID)
			}
		}},
		{name: "client_id production", lines: []string{`client_id = "mp_live_abc"`}, check: func(t *testing.T, p *Profile) {
			if p.Environment != api.Production || p.IsSandbox() {
				t.Errorf("Environment = %q", p.Environment)
			}
		}},
		{name: "client_id bare prefix", lines: []string{`client_id = "mp_test_"`}, wantErr: "must start with mp_live_ (production) or mp_test_ (sandbox)", wantKey: "profiles.shop.client_id"},
		{name: "client_id wrong prefix", lines: []string{`client_id = "sk_live_abc"`}, wantErr: "must start with mp_live_", wantKey: "profiles.shop.client_id"},
		{name: "client_id upper prefix", lines: []string{`client_id = "MP_TEST_abc"`}, wantErr: "must start with mp_live_"},
		{name: "client_id with space", lines: []string{`client_id = "mp_test_a b"`}, wantErr: "must start with mp_live_"},
		{name: "client_id number", lines: []string{`client_id = 7`}, wantErr: "must be a string"},
		{name: "client_id missing", lines: []string{"-client_id"}, wantErr: "missing client_id", wantKey: "profiles.shop"},
		{name: "environment agrees sandbox", lines: []string{`environment = "sandbox"`}},
		{name: "environment agrees production", lines: []string{`client_id = "mp_live_x1"`, `environment = "production"`}},
		{name: "environment mismatch live", lines: []string{`client_id = "mp_test_x1"`, `environment = "production"`}, wantErr: `is "production" but client_id starts with mp_test_, which is sandbox`, wantKey: "profiles.shop.environment"},
		{name: "environment mismatch test", lines: []string{`client_id = "mp_live_x1"`, `environment = "sandbox"`}, wantErr: `is "sandbox" but client_id starts with mp_live_, which is production`},
		{name: "environment unknown", lines: []string{`environment = "staging"`}, wantErr: `must be "sandbox" or "production"`, wantKey: "profiles.shop.environment"},
		{name: "environment bool", lines: []string{`environment = true`}, wantErr: "must be a string in double quotes, not a boolean"},

		// secret sources
		{name: "secret env", lines: []string{`client_secret_env = "MY_SECRET_2"`}, check: func(t *testing.T, p *Profile) {
			if got := p.SecretSource(); got != "environment variable MY_SECRET_2" {
				t.Errorf("SecretSource = %q", got)
			}
		}},
		{name: "secret cmd", lines: []string{`client_secret_cmd = "pass show pixdash/live"`}, check: func(t *testing.T, p *Profile) {
			if got := p.SecretSource(); got != "command (client_secret_cmd)" {
				t.Errorf("SecretSource = %q", got)
			}
		}},
		{name: "secret in private file", lines: []string{`client_secret = "s3cretvalue"`}, check: func(t *testing.T, p *Profile) {
			if got := p.SecretSource(); got != "config file (client_secret)" {
				t.Errorf("SecretSource = %q", got)
			}
		}},
		{name: "secret none", lines: []string{"-client_secret_env"}, wantErr: "missing the client secret", wantKey: "profiles.shop"},
		{name: "secret two sources", lines: []string{`client_secret_env = "A"`, `client_secret_cmd = "pass show x"`}, wantErr: "only one client secret source is allowed, found client_secret_env and client_secret_cmd", wantKey: "profiles.shop.client_secret_cmd"},
		{name: "secret three sources", lines: []string{`client_secret_env = "A"`, `client_secret_cmd = "pass show x"`, `client_secret = "s3cretvalue"`}, wantErr: "found client_secret_env and client_secret_cmd and client_secret"},
		{name: "secret env not a name", lines: []string{`client_secret_env = "s3cret value!"`}, wantErr: "must be the NAME of an environment variable", wantKey: "profiles.shop.client_secret_env"},
		{name: "secret env starts with digit", lines: []string{`client_secret_env = "1X"`}, wantErr: "NAME of an environment variable"},
		{name: "secret cmd empty", lines: []string{`client_secret_cmd = "  "`}, wantErr: "is empty", wantKey: "profiles.shop.client_secret_cmd"},
		{name: "secret cmd array", lines: []string{`client_secret_cmd = ["pass", "show"]`}, wantErr: "must be a string in double quotes, not an array"},
		{name: "secret in file not string", lines: []string{`client_secret = 12345678`}, wantErr: "must be a string in double quotes, not an integer", wantKey: "profiles.shop.client_secret"},
		{name: "secret in file empty", lines: []string{`client_secret = ""`}, wantErr: "is empty"},

		// sub_account
		{name: "sub_account reference", lines: []string{`sub_account = "loja-1_a"`}, check: func(t *testing.T, p *Profile) {
			if p.SubAccount != "loja-1_a" {
				t.Errorf("SubAccount = %q", p.SubAccount)
			}
		}},
		{name: "sub_account principal", lines: []string{`sub_account = "principal"`}},
		{name: "sub_account 2 chars", lines: []string{`sub_account = "ab"`}},
		{name: "sub_account 32 chars", lines: []string{`sub_account = "` + strings.Repeat("a", 32) + `"`}},
		{name: "sub_account 33 chars", lines: []string{`sub_account = "` + strings.Repeat("a", 33) + `"`}, wantErr: "is not a sub-account reference", wantKey: "profiles.shop.sub_account"},
		{name: "sub_account 1 char", lines: []string{`sub_account = "a"`}, wantErr: "is not a sub-account reference"},
		{name: "sub_account upper", lines: []string{`sub_account = "Loja"`}, wantErr: "is not a sub-account reference"},
		{name: "sub_account leading dash", lines: []string{`sub_account = "-loja"`}, wantErr: "is not a sub-account reference"},
		{name: "sub_account space", lines: []string{`sub_account = "lo ja"`}, wantErr: "is not a sub-account reference"},
		{name: "sub_account number", lines: []string{`sub_account = 12`}, wantErr: "must be a string"},

		// pix_fee
		{name: "pix_fee string", lines: []string{`pix_fee = "0.99"`}, check: wantFee(99)},
		{name: "pix_fee float", lines: []string{`pix_fee = 0.99`}, check: wantFee(99)},
		{name: "pix_fee integer", lines: []string{`pix_fee = 2`}, check: wantFee(200)},
		{name: "pix_fee one decimal", lines: []string{`pix_fee = "1.5"`}, check: wantFee(150)},
		{name: "pix_fee trailing zero", lines: []string{`pix_fee = 0.990`}, check: wantFee(99)},
		{name: "pix_fee underscores", lines: []string{`pix_fee = 1_000.5`}, check: wantFee(100050)},
		{name: "pix_fee exponent", lines: []string{`pix_fee = 99e-2`}, check: wantFee(99)},
		{name: "pix_fee zero", lines: []string{`pix_fee = "0"`}, check: wantFee(0)},
		{name: "pix_fee string 3 decimals", lines: []string{`pix_fee = "0.999"`}, wantErr: `"0.999" has more than 2 decimal places`, wantKey: "profiles.shop.pix_fee"},
		{name: "pix_fee float 3 decimals", lines: []string{`pix_fee = 0.999`}, wantErr: "more than 2 decimal places"},
		{name: "pix_fee float many decimals", lines: []string{`pix_fee = 0.1000000000000000000001`}, wantErr: "more than 2 decimal places"},
		{name: "pix_fee comma", lines: []string{`pix_fee = "0,99"`}, wantErr: "is not a decimal amount"},
		{name: "pix_fee text", lines: []string{`pix_fee = "abc"`}, wantErr: "is not a decimal amount"},
		{name: "pix_fee negative", lines: []string{`pix_fee = -1`}, wantErr: "must not be negative"},
		{name: "pix_fee inf", lines: []string{`pix_fee = inf`}, wantErr: "is not a decimal amount"},
		{name: "pix_fee bool", lines: []string{`pix_fee = true`}, wantErr: "must be a decimal amount"},
		{name: "pix_fee unset", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.HasPixFee || p.PixFee != 0 {
				t.Errorf("HasPixFee=%v PixFee=%d", p.HasPixFee, p.PixFee)
			}
		}},

		// read_only
		{name: "read_only true", lines: []string{`read_only = true`}, check: func(t *testing.T, p *Profile) {
			if !p.ReadOnly {
				t.Error("ReadOnly = false")
			}
		}},
		{name: "read_only default", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.ReadOnly {
				t.Error("ReadOnly = true")
			}
		}},
		{name: "read_only string", lines: []string{`read_only = "yes"`}, wantErr: "must be true or false, not a string", wantKey: "profiles.shop.read_only"},
		// event_retention_days
		{name: "event_retention_days", lines: []string{`event_retention_days = 90`}, check: func(t *testing.T, p *Profile) {
			if p.EventRetentionDays != 90 {
				t.Errorf("EventRetentionDays = %d, want 90", p.EventRetentionDays)
			}
		}},
		{name: "event_retention_days default keeps everything", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.EventRetentionDays != 0 {
				t.Errorf("EventRetentionDays = %d, want 0", p.EventRetentionDays)
			}
		}},
		{name: "event_retention_days negative", lines: []string{`event_retention_days = -1`}, wantErr: "is outside 0 (keep every event) to 36500 days", wantKey: "profiles.shop.event_retention_days"},
		{name: "event_retention_days string", lines: []string{`event_retention_days = "90d"`}, wantErr: "must be a whole number of days", wantKey: "profiles.shop.event_retention_days"},

		// on_paid
		{name: "on_paid argv", lines: []string{`on_paid = ["lp", "-d", "balcao"]`}, check: func(t *testing.T, p *Profile) {
			if strings.Join(p.OnPaid, "|") != "lp|-d|balcao" || p.OnPaidTimeout != DefaultOnPaidTimeout {
				t.Errorf("OnPaid = %q, timeout %s", p.OnPaid, p.OnPaidTimeout)
			}
		}},
		{name: "on_paid absent", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.OnPaid != nil || p.OnPaidTimeout != 30*time.Second {
				t.Errorf("OnPaid = %q, timeout %s", p.OnPaid, p.OnPaidTimeout)
			}
		}},
		{name: "on_paid timeout", lines: []string{`on_paid = ["true"]`, `on_paid_timeout_seconds = 5`}, check: func(t *testing.T, p *Profile) {
			if p.OnPaidTimeout != 5*time.Second {
				t.Errorf("timeout %s", p.OnPaidTimeout)
			}
		}},
		{name: "on_paid string", lines: []string{`on_paid = "lp -d balcao"`}, wantErr: "must be an array of strings", wantKey: "profiles.shop.on_paid"},
		{name: "on_paid empty array", lines: []string{`on_paid = []`}, wantErr: "is empty", wantKey: "profiles.shop.on_paid"},
		{name: "on_paid empty program", lines: []string{`on_paid = ["", "-d"]`}, wantErr: "first element, the program, is empty", wantKey: "profiles.shop.on_paid"},
		{name: "on_paid blank program", lines: []string{`on_paid = ["  "]`}, wantErr: "first element, the program, is empty"},
		{name: "on_paid number element", lines: []string{`on_paid = ["lp", 3]`}, wantErr: "element 2 must be a string"},
		{name: "on_paid NUL", lines: []string{`on_paid = ["lp", "a\u0000b"]`}, wantErr: "element 2 holds a NUL character"},
		{name: "on_paid_timeout zero", lines: []string{`on_paid_timeout_seconds = 0`}, wantErr: "is outside 1 to 3600 seconds", wantKey: "profiles.shop.on_paid_timeout_seconds"},
		{name: "on_paid_timeout string", lines: []string{`on_paid_timeout_seconds = "30s"`}, wantErr: "must be a whole number of seconds"},

		// print_command
		{name: "print_command argv", lines: []string{`print_command = ["lp", "-d", "recibos"]`}, check: func(t *testing.T, p *Profile) {
			if strings.Join(p.PrintCommand, "|") != "lp|-d|recibos" || p.OnPaid != nil {
				t.Errorf("PrintCommand = %q, OnPaid = %q", p.PrintCommand, p.OnPaid)
			}
		}},
		{name: "print_command absent", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.PrintCommand != nil {
				t.Errorf("PrintCommand = %q", p.PrintCommand)
			}
		}},
		{name: "print_command string", lines: []string{`print_command = "lp -d recibos"`}, wantErr: "must be an array of strings", wantKey: "profiles.shop.print_command"},
		{name: "print_command empty array", lines: []string{`print_command = []`}, wantErr: "is empty", wantKey: "profiles.shop.print_command"},
		{name: "print_command empty program", lines: []string{`print_command = ["", "-d"]`}, wantErr: "first element, the program, is empty", wantKey: "profiles.shop.print_command"},
		{name: "print_command number element", lines: []string{`print_command = ["lp", 3]`}, wantErr: "element 2 must be a string"},
		{name: "print_command NUL", lines: []string{`print_command = ["lp", "a\u0000b"]`}, wantErr: "element 2 holds a NUL character"},
		{name: "print_command too long", lines: []string{`print_command = [` + strings.Repeat(`"a", `, MaxOnPaidArgs) + `"a"]`}, wantErr: "at most 64", wantKey: "profiles.shop.print_command"},

		// default_description
		{name: "default_description absent is Venda", lines: nil, check: wantDescription("Venda")},
		{name: "default_description set", lines: []string{`default_description = "Venda no balcão"`}, check: wantDescription("Venda no balcão")},
		{name: "default_description 255 runes", lines: []string{`default_description = "` + strings.Repeat("ç", 255) + `"`}, check: wantDescription(strings.Repeat("ç", 255))},
		{name: "default_description 256 runes", lines: []string{`default_description = "` + strings.Repeat("ç", 256) + `"`}, wantErr: "is 256 characters long; the service accepts at most 255", wantKey: "profiles.shop.default_description"},
		{name: "default_description empty", lines: []string{`default_description = ""`}, wantErr: "is blank", wantKey: "profiles.shop.default_description"},
		{name: "default_description blank", lines: []string{`default_description = "   "`}, wantErr: "is blank"},
		{name: "default_description newline", lines: []string{`default_description = "a\nb"`}, wantErr: "must be one line without control characters"},
		{name: "default_description escape", lines: []string{`default_description = "a\u001b[2Jb"`}, wantErr: "without control characters"},
		{name: "default_description number", lines: []string{`default_description = 5`}, wantErr: "must be a string in double quotes, not an integer", wantKey: "profiles.shop.default_description"},
		{name: "default_description typo", lines: []string{`default_descripton = "x"`}, wantErr: "unknown key (did you mean default_description?)"},

		// webhook signature_header and tolerance
		{name: "webhook defaults", lines: []string{"[profiles.shop.webhook]", `secret_env = "WH"`}, check: func(t *testing.T, p *Profile) {
			if p.Webhook.SignatureHeader != "" || p.Webhook.Tolerance != 300*time.Second {
				t.Errorf("Webhook = %v", p.Webhook)
			}
		}},
		{name: "webhook signature_header", lines: []string{"[profiles.shop.webhook]", `signature_header = "X-Pague-Signature"`}, check: func(t *testing.T, p *Profile) {
			if p.Webhook.SignatureHeader != "X-Pague-Signature" {
				t.Errorf("SignatureHeader = %q", p.Webhook.SignatureHeader)
			}
		}},
		{name: "webhook signature_header token chars", lines: []string{"[profiles.shop.webhook]", "signature_header = \"x-sig_2.v~1\""}},
		{name: "webhook signature_header space", lines: []string{"[profiles.shop.webhook]", `signature_header = "X Signature"`}, wantErr: `"X Signature" is not an HTTP header name`, wantKey: "profiles.shop.webhook.signature_header"},
		{name: "webhook signature_header colon", lines: []string{"[profiles.shop.webhook]", `signature_header = "X-Sig:"`}, wantErr: "is not an HTTP header name"},
		{name: "webhook signature_header accent", lines: []string{"[profiles.shop.webhook]", `signature_header = "X-Assinatura-Ç"`}, wantErr: "is not an HTTP header name"},
		{name: "webhook signature_header empty", lines: []string{"[profiles.shop.webhook]", `signature_header = ""`}, wantErr: "is empty", wantKey: "profiles.shop.webhook.signature_header"},
		{name: "webhook signature_header long", lines: []string{"[profiles.shop.webhook]", `signature_header = "X-` + strings.Repeat("a", 70) + `"`}, wantErr: "longer than 64"},
		{name: "webhook signature_header number", lines: []string{"[profiles.shop.webhook]", `signature_header = 1`}, wantErr: "must be a string"},
		{name: "webhook signature_header outside webhook", lines: []string{`signature_header = "X-Sig"`}, wantErr: "belongs in the [profiles.shop.webhook] section", wantKey: "profiles.shop.signature_header"},
		{name: "webhook tolerance seconds string", lines: []string{"[profiles.shop.webhook]", `tolerance = "300s"`}, check: wantTolerance(300 * time.Second)},
		{name: "webhook tolerance minutes", lines: []string{"[profiles.shop.webhook]", `tolerance = "5m"`}, check: wantTolerance(5 * time.Minute)},
		{name: "webhook tolerance integer", lines: []string{"[profiles.shop.webhook]", `tolerance = 90`}, check: wantTolerance(90 * time.Second)},
		{name: "webhook tolerance 1s", lines: []string{"[profiles.shop.webhook]", `tolerance = "1s"`}, check: wantTolerance(time.Second)},
		{name: "webhook tolerance 24h", lines: []string{"[profiles.shop.webhook]", `tolerance = 86400`}, check: wantTolerance(24 * time.Hour)},
		{name: "webhook tolerance too short", lines: []string{"[profiles.shop.webhook]", `tolerance = "500ms"`}, wantErr: "500ms is outside 1s to 24h", wantKey: "profiles.shop.webhook.tolerance"},
		{name: "webhook tolerance zero", lines: []string{"[profiles.shop.webhook]", `tolerance = 0`}, wantErr: "0s is outside 1s to 24h"},
		{name: "webhook tolerance negative", lines: []string{"[profiles.shop.webhook]", `tolerance = -5`}, wantErr: "-5 seconds is outside 1s to 24h"},
		{name: "webhook tolerance too long", lines: []string{"[profiles.shop.webhook]", `tolerance = "25h"`}, wantErr: "25h is outside 1s to 24h"},
		{name: "webhook tolerance too many seconds", lines: []string{"[profiles.shop.webhook]", `tolerance = 86401`}, wantErr: "86401 seconds is outside"},
		{name: "webhook tolerance no unit", lines: []string{"[profiles.shop.webhook]", `tolerance = "300"`}, wantErr: `"300" is not a duration`, wantKey: "profiles.shop.webhook.tolerance"},
		{name: "webhook tolerance words", lines: []string{"[profiles.shop.webhook]", `tolerance = "five minutes"`}, wantErr: "is not a duration"},
		{name: "webhook tolerance float", lines: []string{"[profiles.shop.webhook]", `tolerance = 1.5`}, wantErr: "must be a duration such as \"300s\" or \"5m\", or whole seconds, not a number"},
		{name: "webhook tolerance typo", lines: []string{"[profiles.shop.webhook]", `tolerence = "5m"`}, wantErr: "unknown key (did you mean tolerance?)", wantKey: "profiles.shop.webhook.tolerence"},

		// webhook
		{name: "webhook absent", lines: nil, check: func(t *testing.T, p *Profile) {
			if p.Webhook != nil || p.Webhook.Enabled() {
				t.Error("Webhook should be nil and disabled")
			}
		}},
		{name: "webhook default listen", lines: []string{"[profiles.shop.webhook]"}, check: func(t *testing.T, p *Profile) {
			if p.Webhook == nil || p.Webhook.Listen != "127.0.0.1:0" || !p.Webhook.IsLoopback() || p.Webhook.Enabled() {
				t.Errorf("Webhook = %v", p.Webhook)
			}
		}},
		{name: "webhook loopback port", lines: []string{"[profiles.shop.webhook]", `listen = "127.0.0.1:8085"`, `secret_env = "WH_SECRET"`}, check: func(t *testing.T, p *Profile) {
			if p.Webhook.Listen != "127.0.0.1:8085" || !p.Webhook.IsLoopback() || !p.Webhook.Enabled() {
				t.Errorf("Webhook = %v", p.Webhook)
			}
			if got := p.Webhook.SecretSource(); got != "environment variable WH_SECRET" {
				t.Errorf("SecretSource = %q", got)
			}
		}},
		{name: "webhook ipv6 loopback", lines: []string{"[profiles.shop.webhook]", `listen = "[::1]:0"`}, check: wantLoopback(true)},
		{name: "webhook localhost", lines: []string{"[profiles.shop.webhook]", `listen = "localhost:9000"`}, check: wantLoopback(true)},
		{name: "webhook all interfaces", lines: []string{"[profiles.shop.webhook]", `listen = "0.0.0.0:8085"`}, check: wantLoopback(false)},
		{name: "webhook empty host", lines: []string{"[profiles.shop.webhook]", `listen = ":8085"`}, check: wantLoopback(false)},
		{name: "webhook lan host", lines: []string{"[profiles.shop.webhook]", `listen = "myhost.lan:8085"`}, check: wantLoopback(false)},
		{name: "webhook inline table", lines: []string{`webhook = { listen = "127.0.0.1:1", secret_cmd = "pass show wh" }`}, check: func(t *testing.T, p *Profile) {
			if p.Webhook.Listen != "127.0.0.1:1" || !p.Webhook.Enabled() {
				t.Errorf("Webhook = %v", p.Webhook)
			}
		}},
		{name: "webhook no port", lines: []string{"[profiles.shop.webhook]", `listen = "8085"`}, wantErr: "must be host:port", wantKey: "profiles.shop.webhook.listen"},
		{name: "webhook port too big", lines: []string{"[profiles.shop.webhook]", `listen = "127.0.0.1:65536"`}, wantErr: "invalid port"},
		{name: "webhook named port", lines: []string{"[profiles.shop.webhook]", `listen = "127.0.0.1:http"`}, wantErr: "invalid port"},
		{name: "webhook bad host", lines: []string{"[profiles.shop.webhook]", `listen = "bad_host!:80"`}, wantErr: "invalid host"},
		{name: "webhook listen number", lines: []string{"[profiles.shop.webhook]", `listen = 8085`}, wantErr: "must be a string"},
		{name: "webhook two secrets", lines: []string{"[profiles.shop.webhook]", `secret_env = "A"`, `secret_cmd = "pass x"`}, wantErr: "only one signing secret source", wantKey: "profiles.shop.webhook.secret_cmd"},
		{name: "webhook secret env not a name", lines: []string{"[profiles.shop.webhook]", `secret_env = "whsec 123"`}, wantErr: "NAME of an environment variable", wantKey: "profiles.shop.webhook.secret_env"},
		{name: "webhook secret cmd empty", lines: []string{"[profiles.shop.webhook]", `secret_cmd = ""`}, wantErr: "is empty"},
		{name: "webhook secret in file", lines: []string{"[profiles.shop.webhook]", `secret = "whsec"`}, wantErr: "the signing secret is never read from this file", wantKey: "profiles.shop.webhook.secret"},
		{name: "webhook unknown key", lines: []string{"[profiles.shop.webhook]", `lisen = "127.0.0.1:1"`}, wantErr: "unknown key (did you mean listen?)", wantKey: "profiles.shop.webhook.lisen"},
		{name: "webhook not a table", lines: []string{`webhook = "127.0.0.1:1"`}, wantErr: "must be a table", wantKey: "profiles.shop.webhook"},

		// unknown keys in a profile
		{name: "typo client_id", lines: []string{`clinet_id = "mp_test_x"`}, wantErr: "unknown key (did you mean client_id?)", wantKey: "profiles.shop.clinet_id"},
		{name: "typo hyphen", lines: []string{`base-url = "https://x/v2"`}, wantErr: "unknown key (did you mean base_url?)"},
		{name: "typo case", lines: []string{`Read_Only = true`}, wantErr: "unknown key (did you mean read_only?)"},
		{name: "listen outside webhook", lines: []string{`listen = "127.0.0.1:1"`}, wantErr: "belongs in the [profiles.shop.webhook] section", wantKey: "profiles.shop.listen"},
		{name: "unrelated key", lines: []string{`colour = "red"`}, wantErr: "unknown key (known keys: base_url,", wantKey: "profiles.shop.colour"},
		{name: "dotted unknown", lines: []string{`extra.deep = 1`}, wantErr: "unknown key", wantKey: "profiles.shop.extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := profileDoc(tt.lines...)
			p, err := parseOne(t, doc, 0o600)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error:\n%v\n--- doc:\n%s", err, doc)
				}
				if tt.check != nil {
					tt.check(t, p)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q, got none\n--- doc:\n%s", tt.wantErr, doc)
			}
			var found *Problem
			for _, pr := range err.(Problems) {
				if strings.Contains(pr.Msg, tt.wantErr) {
					found = &pr
					break
				}
			}
			if found == nil {
				t.Fatalf("no problem contains %q:\n%v", tt.wantErr, err)
			}
			if found.File != testFile || found.Line < 1 {
				t.Errorf("problem not located: %+v", *found)
			}
			if tt.wantKey != "" && found.Key != tt.wantKey {
				t.Errorf("problem key = %q, want %q (%v)", found.Key, tt.wantKey, found)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error reveals the secret: %v", err)
			}
		})
	}
}

func wantFee(centavos api.Money) func(*testing.T, *Profile) {
	return func(t *testing.T, p *Profile) {
		t.Helper()
		if !p.HasPixFee || p.PixFee != centavos {
			t.Errorf("PixFee = %d (set %v), want %d", p.PixFee, p.HasPixFee, centavos)
		}
	}
}

func wantDescription(want string) func(*testing.T, *Profile) {
	return func(t *testing.T, p *Profile) {
		t.Helper()
		if p.DefaultDescription != want {
			t.Errorf("DefaultDescription = %q, want %q", p.DefaultDescription, want)
		}
	}
}

func wantTolerance(want time.Duration) func(*testing.T, *Profile) {
	return func(t *testing.T, p *Profile) {
		t.Helper()
		if p.Webhook == nil || p.Webhook.Tolerance != want {
			t.Errorf("Webhook = %v, want tolerance %s", p.Webhook, want)
		}
	}
}

func wantLoopback(want bool) func(*testing.T, *Profile) {
	return func(t *testing.T, p *Profile) {
		t.Helper()
		if p.Webhook == nil {
			t.Fatal("no webhook")
		}
		if got := p.Webhook.IsLoopback(); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", p.Webhook.Listen, got, want)
		}
	}
}

func TestTopLevelKeys(t *testing.T) {
	two := profileDoc() + strings.ReplaceAll(profileDoc(), "profiles.shop", "profiles.other")
	tests := []struct {
		name    string
		doc     string
		wantErr string
		wantKey string
		check   func(*testing.T, *Config)
	}{
		// No language line: Language stays unset for the environment to decide (DashboardLanguage).
		{name: "defaults", doc: profileDoc(), check: func(t *testing.T, c *Config) {
			if c.Language != "" || c.CustomerLanguage != LangPortuguese || c.DefaultProfile != "" || c.Path != testFile {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "empty file", doc: "", check: func(t *testing.T, c *Config) {
			if len(c.Profiles) != 0 || c.Language != "" {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "languages", doc: "language = \"pt-BR\"\ncustomer_language = \"en\"\n" + profileDoc(), check: func(t *testing.T, c *Config) {
			if c.Language != LangPortuguese || c.CustomerLanguage != LangEnglish {
				t.Errorf("got %q %q", c.Language, c.CustomerLanguage)
			}
		}},
		{name: "language spelled loosely", doc: "language = \"pt_br\"\n", check: func(t *testing.T, c *Config) {
			if c.Language != LangPortuguese {
				t.Errorf("got %q", c.Language)
			}
		}},
		{name: "language pt, as --lang pt", doc: "language = \"pt\"\ncustomer_language = \"PT\"\n", check: func(t *testing.T, c *Config) {
			if c.Language != LangPortuguese || c.CustomerLanguage != LangPortuguese {
				t.Errorf("languages %q %q", c.Language, c.CustomerLanguage)
			}
		}},
		{name: "language en said", doc: "language = \"en\"\n", check: func(t *testing.T, c *Config) {
			if c.Language != LangEnglish {
				t.Errorf("got %q", c.Language)
			}
		}},
		{name: "language unsupported", doc: "language = \"fr\"\n", wantErr: `"fr" is not supported; use "en" or "pt-BR"`, wantKey: "language"},
		{name: "customer_language unsupported", doc: "customer_language = \"es\"\n", wantErr: "is not supported", wantKey: "customer_language"},
		{name: "language not string", doc: "language = 1\n", wantErr: "must be a string", wantKey: "language"},
		{name: "default_profile", doc: "default_profile = \"other\"\n" + two, check: func(t *testing.T, c *Config) {
			if c.DefaultProfile != "other" {
				t.Errorf("got %q", c.DefaultProfile)
			}
		}},
		{name: "default_profile unknown", doc: "default_profile = \"nope\"\n" + two, wantErr: `no profile named "nope" (defined: shop, other)`, wantKey: "default_profile"},
		{name: "default_profile not string", doc: "default_profile = [1]\n" + profileDoc(), wantErr: "must be a string", wantKey: "default_profile"},
		{name: "profiles not table", doc: "profiles = 3\n", wantErr: "must be a table", wantKey: "profiles"},
		{name: "profiles array of tables", doc: "[[profiles]]\nname = \"x\"\n", wantErr: "must be a table: write one [profiles.NAME] section per profile, not an array of tables", wantKey: "profiles"},
		{name: "profile not table", doc: "[profiles]\nshop = 1\n", wantErr: "must be a table", wantKey: "profiles.shop"},
		{name: "profile bad name", doc: strings.ReplaceAll(profileDoc(), "profiles.shop", `profiles."my shop"`), wantErr: "profile names use 1 to 32 letters", wantKey: `profiles."my shop"`},
		{name: "profile keys at top", doc: "client_id = \"mp_test_x\"\n", wantErr: "client_id belongs in a [profiles.NAME] section", wantKey: "client_id"},
		{name: "typo profiles", doc: strings.ReplaceAll(profileDoc(), "profiles.shop", "profile.shop"), wantErr: "unknown key (did you mean profiles?)", wantKey: "profile"},
		{name: "typo language", doc: "langauge = \"en\"\n", wantErr: "unknown key (did you mean language?)", wantKey: "langauge"},
		{name: "unknown top key", doc: "theme = \"dark\"\n", wantErr: "unknown key (known keys: default_profile, language, customer_language, profiles)", wantKey: "theme"},
		{name: "profiles in file order", doc: strings.ReplaceAll(profileDoc(), "profiles.shop", "profiles.zeta") + strings.ReplaceAll(profileDoc(), "profiles.shop", "profiles.alpha") + profileDoc(), check: func(t *testing.T, c *Config) {
			if got := strings.Join(c.Names(), ","); got != "zeta,alpha,shop" {
				t.Errorf("order = %s", got)
			}
		}},
		{name: "inline profiles", doc: `profiles = { b = { base_url = "https://x.example/v2", client_id = "mp_test_b", client_secret_env = "B", pix_fee = 0.5 }, a = { base_url = "https://x.example/v2", client_id = "mp_live_a", client_secret_env = "A" } }` + "\n", check: func(t *testing.T, c *Config) {
			if got := strings.Join(c.Names(), ","); got != "b,a" {
				t.Errorf("order = %s", got)
			}
			if c.Profiles[0].PixFee != 50 || c.Profiles[1].Environment != api.Production {
				t.Errorf("got %v", c.Profiles)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(testFile, []byte(tt.doc), 0o600)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if err := cfg.Validate(); err != nil {
					t.Errorf("Validate after Parse: %v", err)
				}
				if tt.check != nil {
					tt.check(t, cfg)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q", tt.wantErr)
			}
			for _, pr := range err.(Problems) {
				if strings.Contains(pr.Msg, tt.wantErr) {
					if pr.Key != tt.wantKey || pr.Line < 1 || pr.File != testFile {
						t.Errorf("problem = %+v, want key %q and a line", pr, tt.wantKey)
					}
					return
				}
			}
			t.Fatalf("no problem contains %q:\n%v", tt.wantErr, err)
		})
	}
}

func TestUnknownKeyMessageHasFileLineKeyAndSuggestion(t *testing.T) {
	doc := `# pixdash
default_profile = "shop"
language = "en"

[profiles.sandbox]
base_url = "https://api.example.com/v2"
client_id = "mp_test_abc"
client_secret_env = "SB"

[profiles.shop]
base_url = "https://api.example.com/v2"
clinet_id = "mp_live_abc"
client_secret_env = "SHOP"
`
	_, err := Parse(testFile, []byte(doc), 0o600)
	if err == nil {
		t.Fatal("want error")
	}
	want := "/home/x/.config/pixdash/config.toml:12: profiles.shop.clinet_id: unknown key (did you mean client_id?)"
	lines := strings.Split(err.Error(), "\n")
	if !contains(lines, want) {
		t.Fatalf("want line %q in:\n%v", want, err)
	}
	// The misspelling also leaves client_id missing, reported at the table header.
	if !contains(lines, "/home/x/.config/pixdash/config.toml:10: profiles.shop: missing client_id (required; starts with mp_live_ or mp_test_)") {
		t.Errorf("missing client_id not reported at line 10:\n%v", err)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func TestAllProblemsCollectedInLineOrder(t *testing.T) {
	doc := `langauge = "en"
[profiles.a]
base_url = "http://api.example.com/v2"
client_id = "mp_test_a"
environment = "production"
client_secret_env = "A"
pix_fee = "1.234"
[profiles.b]
base_url = "https://api.example.com/v3"
client_id = "xx"
client_secret_env = "B"
sub_account = "NO"
`
	_, err := Parse(testFile, []byte(doc), 0o600)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("want Problems, got %v", err)
	}
	wantLines := []int{1, 3, 5, 7, 9, 10, 12}
	if len(ps) != len(wantLines) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(wantLines), err)
	}
	for i, p := range ps {
		if p.Line != wantLines[i] {
			t.Errorf("problem %d at line %d, want %d: %v", i, p.Line, wantLines[i], p)
		}
	}
}

func TestSyntaxErrorHasPosition(t *testing.T) {
	_, err := Parse(testFile, []byte("language = \"en\"\n[profiles.shop\nbase_url = 1\n"), 0o600)
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	if ps[0].Line != 2 || !strings.HasPrefix(ps[0].Error(), testFile+":2: ") {
		t.Errorf("problem = %+v / %q", ps[0], ps[0].Error())
	}
}

func TestSyntaxErrorNeverQuotesSecret(t *testing.T) {
	docs := []string{
		"[profiles.a]\nclient_secret = s3cretvalue\n",
		"[profiles.a]\nclient_secret = \"s3cretvalue\n",
		"[profiles.a]\nclient_secret = 123s3cretvalue\n",
		"[profiles.a]\nclient_secret = tru3s3cretvalue\n",
		"[profiles.a]\nclient_secret = \"s3cret\\qvalue\"\n",
		"[profiles.a]\n\"client_secret\" = s3cretvalue\n",
	}
	for _, doc := range docs {
		_, err := Parse(testFile, []byte(doc), 0o600)
		if err == nil {
			t.Fatalf("want error for %q", doc)
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cret") || strings.Contains(msg, "found") || strings.Contains(msg, "'s'") {
			t.Errorf("error may quote the secret: %q", msg)
		}
		if !strings.Contains(msg, testFile+":2:") {
			t.Errorf("error not located: %q", msg)
		}
	}
}

func TestClientSecretInFileNeedsPrivateMode(t *testing.T) {
	doc := profileDoc(`client_secret = "s3cretvalue"`)
	for _, mode := range []fs.FileMode{0o644, 0o640, 0o604, 0o620, 0o660, 0o666, 0o602} {
		_, err := Parse(testFile, []byte(doc), mode)
		if err == nil {
			t.Fatalf("mode %#o: want refusal", mode)
		}
		if !strings.Contains(err.Error(), "chmod 600 "+testFile) {
			t.Errorf("mode %#o: message lacks the fix: %v", mode, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("mode %#o: message reveals the secret: %v", mode, err)
		}
	}
	for _, mode := range []fs.FileMode{0o600, 0o400, 0o700} {
		if _, err := Parse(testFile, []byte(doc), mode); err != nil {
			t.Errorf("mode %#o: %v", mode, err)
		}
	}
	// Without client_secret in the file, a readable file is fine.
	if _, err := Parse(testFile, []byte(profileDoc()), 0o644); err != nil {
		t.Errorf("0644 without in-file secret: %v", err)
	}
}

func TestChmodFixQuotesOddPaths(t *testing.T) {
	path := "/home/x/my configs/pix'dash.toml"
	_, err := Parse(path, []byte(profileDoc(`client_secret = "s3cretvalue"`)), 0o644)
	if err == nil || !strings.Contains(err.Error(), `chmod 600 '/home/x/my configs/pix'\''dash.toml'`) {
		t.Errorf("got %v", err)
	}
}

func TestCommandsNeedFileOthersCannotWrite(t *testing.T) {
	for _, doc := range []string{
		profileDoc(`client_secret_cmd = "pass show x"`),
		profileDoc("[profiles.shop.webhook]", `secret_cmd = "pass show wh"`),
	} {
		_, err := Parse(testFile, []byte(doc), 0o664)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+testFile) {
			t.Errorf("group-writable file with a command: got %v", err)
		}
		if _, err := Parse(testFile, []byte(doc), 0o644); err != nil {
			t.Errorf("0644 with a command: %v", err)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string, mode fs.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("missing", func(t *testing.T) {
		_, err := Load(filepath.Join(dir, "nope.toml"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("want fs.ErrNotExist, got %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("secret 0644 refused", func(t *testing.T) {
		p := write("open.toml", profileDoc(`client_secret = "s3cretvalue"`), 0o644)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+p) {
			t.Fatalf("want chmod 600 %s, got %v", p, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error reveals the secret: %v", err)
		}
	})
	t.Run("secret 0600 accepted", func(t *testing.T) {
		p := write("private.toml", profileDoc(`client_secret = "s3cretvalue"`), 0o600)
		cfg, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Path != p {
			t.Errorf("Path = %q", cfg.Path)
		}
		got, err := cfg.Profiles[0].ClientSecret(t.Context())
		if err != nil || got.Reveal() != "s3cretvalue" {
			t.Errorf("ClientSecret = %v, %v", got.Reveal() == "s3cretvalue", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		p := write("big.toml", "# "+strings.Repeat("x", MaxFileSize)+"\n", 0o600)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "larger than 64 KiB") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("utf8 bom", func(t *testing.T) {
		p := write("bom.toml", "\xef\xbb\xbf"+profileDoc(`pix_fee = 0.45`), 0o600)
		cfg, err := Load(p)
		if err != nil || cfg.Profiles[0].PixFee != 45 {
			t.Errorf("got %v, %v", cfg, err)
		}
	})
}

func TestProfileSelection(t *testing.T) {
	mk := func(def string, names ...string) *Config {
		c := &Config{Path: testFile, DefaultProfile: def}
		for _, n := range names {
			c.Profiles = append(c.Profiles, &Profile{Name: n})
		}
		return c
	}
	tests := []struct {
		name    string
		cfg     *Config
		ask     string
		want    string
		wantErr string
	}{
		{name: "by name", cfg: mk("a", "a", "b"), ask: "b", want: "b"},
		{name: "default", cfg: mk("b", "a", "b"), want: "b"},
		{name: "only one", cfg: mk("", "solo"), want: "solo"},
		{name: "unknown name lists", cfg: mk("", "a", "b"), ask: "c", wantErr: `no profile "c" in ` + testFile + " (available: a, b)"},
		{name: "ambiguous", cfg: mk("", "a", "b"), wantErr: "several profiles and no default_profile; choose one with --profile NAME or PIXDASH_PROFILE, or set default_profile (available: a, b)"},
		{name: "none", cfg: mk(""), wantErr: "no profiles defined in " + testFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.cfg.Profile(tt.ask)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Name != tt.want {
				t.Fatalf("got %v, %v; want %s", p, err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	good := func() *Config {
		cfg, err := Parse(testFile, []byte(Example), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{name: "example", mutate: func(*Config) {}},
		{name: "language", mutate: func(c *Config) { c.Language = "de" }, wantErr: "language: "},
		{name: "customer language", mutate: func(c *Config) { c.CustomerLanguage = "" }, wantErr: "customer_language: "},
		{name: "default profile", mutate: func(c *Config) { c.DefaultProfile = "ghost" }, wantErr: `no profile named "ghost"`},
		{name: "duplicate", mutate: func(c *Config) { c.Profiles[1].Name = c.Profiles[0].Name }, wantErr: "profile defined twice"},
		{name: "base url", mutate: func(c *Config) { c.Profiles[0].BaseURL = "http://example.com/v2" }, wantErr: "base_url: plain http://"},
		{name: "env mismatch", mutate: func(c *Config) { c.Profiles[0].Environment = api.Production }, wantErr: "environment: "},
		{name: "client id", mutate: func(c *Config) { c.Profiles[0].ClientID = "x" }, wantErr: "client_id: "},
		{name: "sub account", mutate: func(c *Config) { c.Profiles[0].SubAccount = "X" }, wantErr: "sub_account: "},
		{name: "fee", mutate: func(c *Config) { c.Profiles[0].PixFee = -1 }, wantErr: "pix_fee: must not be negative"},
		{name: "listen", mutate: func(c *Config) { c.Profiles[0].Webhook.Listen = "nope" }, wantErr: "webhook.listen: "},
		{name: "description unset means default", mutate: func(c *Config) { c.Profiles[0].DefaultDescription = "" }},
		{name: "description blank", mutate: func(c *Config) { c.Profiles[0].DefaultDescription = " " }, wantErr: "default_description: is blank"},
		{name: "description long", mutate: func(c *Config) { c.Profiles[0].DefaultDescription = strings.Repeat("x", 256) }, wantErr: "default_description: is 256 characters"},
		{name: "signature header", mutate: func(c *Config) { c.Profiles[0].Webhook.SignatureHeader = "a b" }, wantErr: "webhook.signature_header: "},
		{name: "tolerance unset means default", mutate: func(c *Config) { c.Profiles[0].Webhook.Tolerance = 0 }},
		{name: "tolerance", mutate: func(c *Config) { c.Profiles[0].Webhook.Tolerance = 48 * time.Hour }, wantErr: "webhook.tolerance: 48h is outside 1s to 24h"},
		{name: "nil profile", mutate: func(c *Config) { c.Profiles = append(c.Profiles, nil) }, wantErr: "is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			tt.mutate(c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "f.toml", Line: 3, Key: "a.b", Msg: "bad"}, "f.toml:3: a.b: bad"},
		{Problem{File: "f.toml", Key: "a", Msg: "bad"}, "f.toml: a: bad"},
		{Problem{File: "f.toml", Msg: "bad"}, "f.toml: bad"},
		{Problem{Line: 2, Msg: "bad"}, "line 2: bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got := (Problems{tests[0].p, tests[2].p}).Error(); got != "f.toml:3: a.b: bad\nf.toml: bad" {
		t.Errorf("Problems.Error = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct{ in, want string }{
		{"clinet_id", "client_id"},
		{"client-id", "client_id"},
		{"CLIENT_ID", "client_id"},
		{"base_ur", "base_url"},
		{"pixfee", "pix_fee"},
		{"readonly", "read_only"},
		{"client_secret_evn", "client_secret_env"},
		{"colour", ""},
		{"id", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.in, profileKeys()); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(Example))
	f.Add([]byte("\xef\xbb\xbf" + Example))
	f.Add([]byte(profileDoc(`pix_fee = 0.999`, `clinet_id = "x"`)))
	f.Add([]byte(profileDoc(`client_secret = "s3cretvalue"`, "[profiles.shop.webhook]", `listen = ":1"`)))
	f.Add([]byte("[[profiles]]\n"))
	f.Add([]byte("profiles = { a = { base_url = \"https://x/v2\", client_id = \"mp_test_a\", client_secret_env = \"A\", pix_fee = 1e1 } }\n"))
	f.Add([]byte("a.b.c = 1\n[a]\n"))
	f.Add([]byte("x = \"\"\"\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.toml", data, 0o600)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %T is not a non-empty Problems", err)
			}
			for _, p := range ps {
				if p.File != "fuzz.toml" || p.Msg == "" {
					t.Fatalf("bad problem %+v", p)
				}
			}
			_ = err.Error()
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		for _, p := range cfg.Profiles {
			env, err := api.EnvironmentOf(p.ClientID)
			if err != nil || env != p.Environment {
				t.Fatalf("profile %s: environment %q for client_id %q", p.Name, p.Environment, p.ClientID)
			}
			if p.secret.kind == sourceNone {
				t.Fatalf("profile %s accepted without a secret source", p.Name)
			}
			_ = fmt.Sprintf("%v %+v %#v", p, p, p)
		}
	})
}

func TestHostileShapesRefusedQuickly(t *testing.T) {
	var many strings.Builder
	for i := range maxKeys + 1 {
		fmt.Fprintf(&many, "k%d = 1\n", i)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"deep dotted key", strings.Repeat("a.", 40) + "b = 1\n", "nested more than 32 levels"},
		{"deep header", "[" + strings.Repeat("a.", 40) + "b]\n", "nested more than 32 levels"},
		{"deep inline tables", "a = " + strings.Repeat("{b=", 40) + "1" + strings.Repeat("}", 40) + "\n", "nested more than 32 levels"},
		{"deep arrays", "a = " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", "nested more than 32 levels"},
		{"too many keys", many.String(), "more than 2000 keys"},
		{"too large", "# " + strings.Repeat("x", MaxFileSize) + "\n", "larger than 64 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(testFile, []byte(tt.doc), 0o600)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
	// Dots and brackets inside strings and comments do not count.
	doc := "# " + strings.Repeat("a.[{", 40) + "\n" + profileDoc(`sub_account = "ab"`, `client_secret_cmd = "echo '`+strings.Repeat("x.[{", 40)+`'"`) +
		"[profiles.shop.webhook]\nsecret_cmd = '''\n" + strings.Repeat("[.{", 40) + "\n'''\n"
	if _, err := Parse(testFile, []byte(doc), 0o600); err != nil {
		t.Fatalf("strings and comments counted as structure: %v", err)
	}
}

func TestProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	for i := range maxProblems + 7 {
		fmt.Fprintf(&b, "unknown%d = 1\n", i)
	}
	_, err := Parse(testFile, []byte(b.String()), 0o600)
	ps, _ := err.(Problems)
	if len(ps) != maxProblems+1 || ps[maxProblems].Msg != "7 more problems not shown" || ps[0].Line != 1 {
		t.Fatalf("got %d problems, last %v", len(ps), ps[len(ps)-1])
	}
}

func TestOnPaidCommandNeedsAPrivateFileAndHidesTheProfileSecretVariables(t *testing.T) {
	doc := profileDoc(`on_paid = ["lp", "-d", "balcao"]`)
	if _, err := parseOne(t, doc, 0o664); err == nil || !strings.Contains(err.Error(), "this file runs a command") || !strings.Contains(err.Error(), "on_paid") {
		t.Errorf("group-writable file with on_paid: %v", err)
	}
	p, err := parseOne(t, doc, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.SecretEnvNames(), ","); got != "SHOP_SECRET" {
		t.Errorf("SecretEnvNames = %q", got)
	}
	c := &Config{Profiles: []*Profile{{Name: "x", BaseURL: "https://api.example.com/v2", ClientID: "mp_test_a", Environment: api.Sandbox, OnPaid: []string{" "}}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "on_paid") {
		t.Errorf("Validate with a blank program: %v", err)
	}
}

func TestPrintCommandNeedsAPrivateFileAndIsValidatedInCode(t *testing.T) {
	doc := profileDoc(`print_command = ["lp", "-d", "recibos"]`)
	if _, err := parseOne(t, doc, 0o664); err == nil || !strings.Contains(err.Error(), "this file runs a command") || !strings.Contains(err.Error(), "print_command") {
		t.Errorf("group-writable file with print_command: %v", err)
	}
	if _, err := parseOne(t, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Config{Language: LangEnglish, CustomerLanguage: LangPortuguese, Profiles: []*Profile{{Name: "x", BaseURL: "https://api.example.com/v2", ClientID: "mp_test_a", Environment: api.Sandbox, PrintCommand: []string{" "}}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "print_command") {
		t.Errorf("Validate with a blank print_command: %v", err)
	}
	c.Profiles[0].PrintCommand = []string{"lp"}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate with print_command [lp]: %v", err)
	}
}

// The environment's language: the first non-empty of LC_ALL, LC_MESSAGES and LANG decides.
func TestEnvLanguage(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, LangEnglish},
		{map[string]string{"LANG": "pt_BR.UTF-8"}, LangPortuguese},
		{map[string]string{"LANG": "pt_BR"}, LangPortuguese},
		{map[string]string{"LANG": "pt"}, LangPortuguese},
		{map[string]string{"LANG": "pt_BR.ISO-8859-1@x"}, LangPortuguese},
		{map[string]string{"LANG": "pt_PT.UTF-8"}, LangEnglish},
		{map[string]string{"LANG": "C"}, LangEnglish},
		{map[string]string{"LANG": "C.UTF-8"}, LangEnglish},
		{map[string]string{"LANG": "POSIX"}, LangEnglish},
		{map[string]string{"LANG": "en_US.UTF-8"}, LangEnglish},
		{map[string]string{"LC_MESSAGES": "pt_BR.UTF-8", "LANG": "en_US.UTF-8"}, LangPortuguese},
		{map[string]string{"LC_MESSAGES": "C", "LANG": "pt_BR.UTF-8"}, LangEnglish},
		{map[string]string{"LC_ALL": "pt_BR.UTF-8", "LC_MESSAGES": "C", "LANG": "C"}, LangPortuguese},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "pt_BR.UTF-8"}, LangEnglish},
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "pt_BR.UTF-8"}, LangEnglish},
		{map[string]string{"LC_CTYPE": "pt_BR.UTF-8"}, LangEnglish}, // LC_CTYPE is not the messages' language
	} {
		if got := EnvLanguage(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("EnvLanguage(%v) = %q, want %q", tc.env, got, tc.want)
		}
		cfg := &Config{}
		if got := cfg.DashboardLanguage(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("unset language, %v: DashboardLanguage = %q, want %q", tc.env, got, tc.want)
		}
		cfg.Language = LangEnglish
		if got := cfg.DashboardLanguage(func(k string) string { return tc.env[k] }); got != LangEnglish {
			t.Errorf("language en, %v: DashboardLanguage = %q", tc.env, got)
		}
	}
}
