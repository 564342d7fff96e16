// Package config reads pixdash's TOML profiles, validates them and resolves their secrets.
package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"pixdash/api"
	"pixdash/api/i18n"
	"pixdash/api/safetext"
)

// Languages the dashboard can speak (the catalog's, pixdash/api/i18n).
const (
	LangEnglish    = string(i18n.English)
	LangPortuguese = string(i18n.Portuguese)
)

// DefaultListen is the webhook receiver address used when listen is not set.
const DefaultListen = "127.0.0.1:0"

// DefaultDescription is the charge description used when a profile sets no default_description.
const DefaultDescription = "Venda"

// MaxDescription bounds default_description, as the service bounds a charge's description.
const MaxDescription = api.MaxDescription

// Bounds and default of webhook.tolerance: how far a delivery's timestamp may be from the clock.
const (
	DefaultTolerance = api.DefaultWebhookTolerance
	MinTolerance     = time.Second
	MaxTolerance     = 24 * time.Hour
)

// Bounds and default of on_paid and on_paid_timeout_seconds.
const (
	DefaultOnPaidTimeout = 30 * time.Second
	MaxOnPaidTimeout     = time.Hour
	MaxOnPaidArgs        = 64
	MaxOnPaidArgLen      = 4096
)

// MaxFileSize bounds the config file; anything larger is refused.
const MaxFileSize = 64 << 10

// Bounds that keep parsing fast on hostile input; real files are far below them.
const (
	maxProblems = 50   // problems reported before "N more"
	maxKeys     = 2000 // key/value pairs and table headers
	maxNesting  = 32   // dotted key parts, and open brackets or braces
)

// Config is a parsed, validated configuration file.
type Config struct {
	Path             string     // file it was read from ("" if built in code)
	DefaultProfile   string     // default_profile, "" when unset
	Language         string     // dashboard language: LangEnglish, LangPortuguese, or "" when the file does not say (the environment decides: DashboardLanguage)
	CustomerLanguage string     // language of the customer-facing QR and result screens
	Profiles         []*Profile // in file order
	// Warnings are settings that work but deserve attention (a webhook receiver reachable
	// beyond this machine over plain HTTP), located like problems; Parse fills them.
	Warnings Problems
}

// Profile is one [profiles.NAME] table: an account, its credential and its preferences.
type Profile struct {
	Name        string
	BaseURL     string // absolute, last segment v2, no trailing slash
	ClientID    string
	Environment api.Environment // derived from the client_id prefix
	SubAccount  string          // "" for the main account
	PixFee      api.Money       // valid only when HasPixFee
	HasPixFee   bool
	ReadOnly    bool
	// DefaultDescription is default_description: the description a new charge starts with.
	// Parse sets DefaultDescription when the key is absent; "" (built in code) means the same.
	DefaultDescription string
	// EventRetentionDays is event_retention_days: webhook events older than this many days are
	// removed from the profile's local history when the dashboard opens it; 0 keeps every event.
	EventRetentionDays int
	// ExportFormat is export_format: the dialect the dashboard's export key writes, "br" (the
	// default: ";" and a decimal comma for Brazilian spreadsheets) or "csv" (RFC 4180).
	ExportFormat string
	// OnPaid is on_paid: a command (argv, run without a shell) run once per confirmed payment
	// with the charge's fields in its environment; nil for none.
	OnPaid []string
	// OnPaidTimeout is on_paid_timeout_seconds: how long one on_paid run may take before it is
	// killed (Parse sets DefaultOnPaidTimeout when absent).
	OnPaidTimeout time.Duration
	// PrintCommand is print_command: a command (argv, run without a shell) the day's close is
	// sent to on its stdin (pixdash close --print, the dashboard's close screen); nil for none.
	PrintCommand []string
	Webhook      *Webhook // nil when the profile has no webhook table
	// Hub is the link to the shop's hub (hub = "nats://…" and the hub_* keys); nil for none.
	Hub *Hub

	secret secretSource // exactly one of client_secret_env, client_secret_cmd, client_secret
}

// Webhook is a profile's local webhook receiver settings.
type Webhook struct {
	Listen string // host:port
	// SignatureHeader is signature_header: a header the receiver reads the signature from before
	// the service's own ("" for the receiver's defaults only).
	SignatureHeader string
	// Tolerance is tolerance: how far a delivery's timestamp may be from the local clock
	// (Parse sets DefaultTolerance when absent; 0, built in code, means the same).
	Tolerance time.Duration
	// TLSCert and TLSKey are tls_cert and tls_key: a PEM certificate chain and its private key
	// the receiver serves HTTPS with; both or neither. Parse resolves a relative path against
	// the config file's directory and checks that the two load as a key pair.
	TLSCert, TLSKey string

	secret secretSource // secret_env or secret_cmd; zero when the receiver is disabled
}

// Problem is one thing wrong with a config file, located by file, line and key.
type Problem struct {
	File string
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key such as profiles.shop.client_id; "" when not tied to a key
	Msg  string
}

// Error formats the problem as "file:line: key: message".
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		b.WriteString("line " + strconv.Itoa(p.Line) + ": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem found in a config file; it is the error Parse and Load return.
type Problems []Problem

// Error lists the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Load reads and parses the config file at path; a missing file gives an error matching fs.ErrNotExist.
func Load(path string) (*Config, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, Problems{{File: path, Msg: "not a regular file"}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, Problems{{File: path, Msg: "not a regular file"}}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", path, err)
	}
	mode := fi.Mode().Perm()
	if runtime.GOOS == "windows" {
		mode = 0o600 // permission bits carry no meaning there
	}
	return Parse(path, data, mode)
}

// Parse decodes and validates config data; path names the file in messages, mode is its permission bits.
func Parse(path string, data []byte, mode fs.FileMode) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, Problems{{File: path, Msg: "file is larger than 64 KiB; is this the right file?"}}
	}
	text := stripBOM(string(data))
	if line, msg := precheck(text); msg != "" {
		return nil, Problems{{File: path, Line: line, Msg: msg}}
	}
	var root map[string]toml.Primitive
	md, err := toml.Decode(text, &root)
	if err != nil {
		return nil, Problems{syntaxProblem(path, text, err)}
	}
	d := &decoder{md: &md, file: path, source: text, mode: mode.Perm(), first: firstIndex(md.Keys())}
	cfg := d.config(root)
	cfg.Warnings = append(d.warns, sharedPorts(path, cfg.Profiles)...)
	if len(d.probs) > 0 {
		sort.SliceStable(d.probs, func(i, j int) bool { return d.probs[i].Line < d.probs[j].Line })
		if d.more > 0 {
			d.probs = append(d.probs, Problem{File: path, Msg: fmt.Sprintf("%d more problems not shown", d.more)})
		}
		return nil, d.probs
	}
	return cfg, nil
}

// Profile picks a profile by name; "" means default_profile, else the only profile.
func (c *Config) Profile(name string) (*Profile, error) {
	if len(c.Profiles) == 0 {
		return nil, fmt.Errorf("no profiles defined in %s", c.where())
	}
	if name == "" {
		name = c.DefaultProfile
	}
	if name == "" {
		if len(c.Profiles) == 1 {
			return c.Profiles[0], nil
		}
		return nil, fmt.Errorf("%s defines several profiles and no default_profile; choose one with --profile NAME or PIXDASH_PROFILE, or set default_profile (available: %s)", c.where(), strings.Join(c.Names(), ", "))
	}
	for _, p := range c.Profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no profile %q in %s (available: %s)", name, c.where(), strings.Join(c.Names(), ", "))
}

// Names lists the profile names in file order.
func (c *Config) Names() []string {
	names := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		names[i] = p.Name
	}
	return names
}

func (c *Config) where() string {
	if c.Path == "" {
		return "the configuration"
	}
	return c.Path
}

// Validate checks the exported fields (for a Config changed or built in code); Parse already did this.
func (c *Config) Validate() error {
	var ps Problems
	add := func(key, msg string) { ps = append(ps, Problem{File: c.Path, Key: key, Msg: msg}) }
	if c.Language != "" { // unset: the environment decides
		if _, msg := checkLanguage(c.Language); msg != "" {
			add("language", msg)
		}
	}
	if _, msg := checkLanguage(c.CustomerLanguage); msg != "" {
		add("customer_language", msg)
	}
	seen := map[string]bool{}
	for i, p := range c.Profiles {
		if p == nil {
			add("profiles", fmt.Sprintf("profile %d is nil", i))
			continue
		}
		key := "profiles." + toml.Key{p.Name}.String()
		if msg := checkProfileName(p.Name); msg != "" {
			add(key, msg)
		}
		if seen[p.Name] {
			add(key, "profile defined twice")
		}
		seen[p.Name] = true
		if _, msg := checkBaseURL(p.BaseURL); msg != "" {
			add(key+".base_url", msg)
		}
		if env, err := api.EnvironmentOf(p.ClientID); err != nil {
			add(key+".client_id", clientIDMsg)
		} else if p.Environment != env {
			add(key+".environment", fmt.Sprintf("is %q but client_id starts with %s (%s)", p.Environment, prefixOf(env), env))
		}
		if msg := checkSubAccount(p.SubAccount); p.SubAccount != "" && msg != "" {
			add(key+".sub_account", msg)
		}
		if p.HasPixFee && p.PixFee < 0 {
			add(key+".pix_fee", "must not be negative")
		}
		if p.DefaultDescription != "" {
			if msg := checkDescription(p.DefaultDescription); msg != "" {
				add(key+".default_description", msg)
			}
		}
		if p.OnPaid != nil {
			if msg := checkArgv(p.OnPaid); msg != "" {
				add(key+".on_paid", msg)
			}
		}
		if p.PrintCommand != nil {
			if msg := checkArgv(p.PrintCommand); msg != "" {
				add(key+".print_command", msg)
			}
		}
		if d := p.OnPaidTimeout; d < 0 || d > MaxOnPaidTimeout {
			add(key+".on_paid_timeout_seconds", fmt.Sprintf("%s is outside 1s to %s", d, MaxOnPaidTimeout))
		}
		if p.Webhook != nil {
			if msg := checkListen(p.Webhook.Listen); msg != "" {
				add(key+".webhook.listen", msg)
			}
			if h := p.Webhook.SignatureHeader; h != "" {
				if msg := checkHeaderName(h); msg != "" {
					add(key+".webhook.signature_header", msg)
				}
			}
			if d := p.Webhook.Tolerance; d != 0 {
				if msg := checkTolerance(d); msg != "" {
					add(key+".webhook.tolerance", msg)
				}
			}
			certMsg, keyMsg := checkKeyPair(p.Webhook.TLSCert, p.Webhook.TLSKey)
			if certMsg != "" {
				add(key+".webhook.tls_cert", certMsg)
			}
			if keyMsg != "" {
				add(key+".webhook.tls_key", keyMsg)
			}
		}
	}
	if c.DefaultProfile != "" && !seen[c.DefaultProfile] {
		add("default_profile", fmt.Sprintf("no profile named %q (defined: %s)", c.DefaultProfile, strings.Join(c.Names(), ", ")))
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// IsSandbox reports whether the profile's credential is a sandbox one.
func (p *Profile) IsSandbox() bool { return p.Environment == api.Sandbox }

// IsLoopback reports whether the receiver listens only on the loopback interface (true for a nil Webhook: no receiver).
func (w *Webhook) IsLoopback() bool {
	if w == nil {
		return true
	}
	host, _, err := net.SplitHostPort(w.Listen)
	if err != nil {
		return false
	}
	return isLoopbackHost(host)
}

// Enabled reports whether the receiver can run: the webhook table exists and names a signing secret.
func (w *Webhook) Enabled() bool { return w != nil && w.secret.kind != sourceNone }

// TLS reports whether the receiver serves HTTPS (tls_cert and tls_key are set).
func (w *Webhook) TLS() bool { return w != nil && w.TLSCert != "" && w.TLSKey != "" }

// PlainBeyondLoopback reports whether an enabled receiver listens beyond the loopback interface
// over plain HTTP, where anyone on the path reads the deliveries (payers' CPF/CNPJ included).
func (w *Webhook) PlainBeyondLoopback() bool { return w.Enabled() && !w.IsLoopback() && !w.TLS() }

// plainListenWarning is the warning for a receiver PlainBeyondLoopback reports.
// sharedPorts warns about profiles whose webhook receivers listen on the same port of
// overlapping addresses (the same host, or either on every interface): only one of them can
// receive at a time, the other opens without a receiver.
func sharedPorts(file string, profiles []*Profile) Problems {
	type bound struct {
		profile, host string
	}
	byPort := map[string][]bound{}
	var ports []string
	for _, p := range profiles {
		if p == nil || p.Webhook == nil || !p.Webhook.Enabled() {
			continue
		}
		host, port, err := net.SplitHostPort(p.Webhook.Listen)
		if err != nil || port == "" || port == "0" {
			continue
		}
		if _, ok := byPort[port]; !ok {
			ports = append(ports, port)
		}
		byPort[port] = append(byPort[port], bound{p.Name, host})
	}
	anyHost := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	var ws Problems
	for _, port := range ports {
		bs := byPort[port]
		for i := 1; i < len(bs); i++ {
			for j := range i {
				a, b := bs[j], bs[i]
				if a.host != b.host && !anyHost(a.host) && !anyHost(b.host) {
					continue
				}
				ws = append(ws, Problem{File: file, Key: "profiles." + toml.Key{b.profile}.String() + ".webhook.listen",
					Msg: fmt.Sprintf("profiles %q and %q both receive webhooks on port %s: only one can listen at a time (the other opens without a receiver); give each profile its own port", a.profile, b.profile, port)})
				break
			}
		}
	}
	return ws
}

func plainListenWarning(listen string) string {
	return fmt.Sprintf("%q is not a loopback address and the receiver has no TLS: deliveries, with payers' CPF/CNPJ, cross the network in clear text; set tls_cert and tls_key, or listen on 127.0.0.1 behind a TLS reverse proxy", listen)
}

// Format prints the profile without any secret or secret command, whatever the verb.
func (p Profile) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, p.describe(verb == 'v' && f.Flag('#')))
}

// String describes the profile without any secret or secret command.
func (p Profile) String() string { return p.describe(false) }

func (p Profile) describe(goSyntax bool) string {
	fee := "unset"
	if p.HasPixFee {
		fee = p.PixFee.Decimal()
	}
	wh := "none"
	if p.Webhook != nil {
		wh = p.Webhook.describe(goSyntax)
	}
	if goSyntax {
		return fmt.Sprintf("config.Profile{Name:%q, BaseURL:%q, ClientID:%q, Environment:%q, SubAccount:%q, PixFee:%d, HasPixFee:%t, ReadOnly:%t, DefaultDescription:%q, Webhook:%s, Secret:%q}",
			p.Name, p.BaseURL, p.ClientID, string(p.Environment), p.SubAccount, int64(p.PixFee), p.HasPixFee, p.ReadOnly, p.DefaultDescription, wh, p.secret.describe())
	}
	return fmt.Sprintf("{Name:%s BaseURL:%s ClientID:%s Environment:%s SubAccount:%s PixFee:%s ReadOnly:%t DefaultDescription:%s Webhook:%s Secret:%s}",
		p.Name, p.BaseURL, p.ClientID, p.Environment, p.SubAccount, fee, p.ReadOnly, p.DefaultDescription, wh, p.secret.describe())
}

// Format prints the webhook settings without the signing secret or its command, whatever the verb.
func (w Webhook) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, w.describe(verb == 'v' && f.Flag('#')))
}

// String describes the webhook settings without the signing secret or its command.
func (w Webhook) String() string { return w.describe(false) }

func (w Webhook) describe(goSyntax bool) string {
	if goSyntax {
		return fmt.Sprintf("&config.Webhook{Listen:%q, SignatureHeader:%q, Tolerance:%q, TLSCert:%q, TLSKey:%q, Secret:%q}", w.Listen, w.SignatureHeader, w.Tolerance.String(), w.TLSCert, w.TLSKey, w.secret.describe())
	}
	return fmt.Sprintf("{Listen:%s SignatureHeader:%s Tolerance:%s TLSCert:%s TLSKey:%s Secret:%s}", w.Listen, w.SignatureHeader, w.Tolerance, w.TLSCert, w.TLSKey, w.secret.describe())
}

// ---- decoding ----

// Known keys per level, in the order the Example shows them.
func topKeys() []string {
	return []string{"default_profile", "language", "customer_language", "profiles"}
}

func profileKeys() []string {
	return append([]string{"base_url", "client_id", "environment", "client_secret_env", "client_secret_cmd", "client_secret", "client_secret_keyring", "sub_account", "pix_fee", "default_description", "read_only", "event_retention_days", "export_format", "on_paid", "on_paid_timeout_seconds", "print_command", "webhook"}, hubKeys()...)
}

func webhookKeys() []string {
	return []string{"listen", "secret_env", "secret_cmd", "secret_keyring", "signature_header", "tolerance", "tls_cert", "tls_key"}
}

// probe makes the toml decoder report a key's position through a ParseError.
type probe struct{}

var errProbe = errors.New("probe")

func (probe) UnmarshalTOML(any) error { return errProbe }

type node struct {
	key  toml.Key
	prim toml.Primitive
}

func (n node) name() string { return n.key[len(n.key)-1] }

type decoder struct {
	md     *toml.MetaData
	file   string
	source string // the text given to the toml decoder; positions index it
	mode   fs.FileMode
	first  map[string]int // key -> index of its first appearance in md.Keys()
	probs  Problems
	more   int      // problems beyond maxProblems, counted but not kept
	warns  Problems // Config.Warnings
}

// firstIndex maps every key and key prefix to the index of its first appearance.
func firstIndex(keys []toml.Key) map[string]int {
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		for j := 1; j <= len(k); j++ {
			s := k[:j].String()
			if _, ok := m[s]; !ok {
				m[s] = i
			}
		}
	}
	return m
}

// children returns a table's entries in file order.
func (d *decoder) children(parent toml.Key, m map[string]toml.Primitive) []node {
	out := make([]node, 0, len(m))
	for name, prim := range m {
		out = append(out, node{key: append(slices.Clone(parent), name), prim: prim})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := d.first[out[i].key.String()], d.first[out[j].key.String()]
		if a != b {
			return a < b
		}
		return out[i].name() < out[j].name()
	})
	return out
}

// pos is where the toml decoder saw n (zero for tables the file only implies).
// It costs a pass over the file, so it is asked only for problems and numbers.
func (d *decoder) pos(n node) toml.Position {
	var pe toml.ParseError
	if err := d.md.PrimitiveDecode(n.prim, probe{}); errors.As(err, &pe) {
		return pe.Position
	}
	return toml.Position{}
}

// table returns n's entries when n is a table.
func (d *decoder) table(n node) ([]node, bool) {
	switch d.md.Type(n.key...) {
	case "Hash":
	case "": // implied by a dotted key or a [a.b] header
		if _, ok := d.value(n).(map[string]any); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	var m map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(n.prim, &m); err != nil {
		return nil, false
	}
	return d.children(n.key, m), true
}

// line is n's line, or that of its first entry for tables the file only implies.
func (d *decoder) line(n node) int {
	if l := d.pos(n).Line; l > 0 {
		return l
	}
	if kids, ok := d.table(n); ok {
		for _, k := range kids {
			if l := d.line(k); l > 0 {
				return l
			}
		}
	}
	return 0
}

func (d *decoder) add(n node, format string, args ...any) {
	if len(d.probs) >= maxProblems {
		d.more++
		return
	}
	d.probs = append(d.probs, Problem{File: d.file, Line: d.line(n), Key: n.key.String(), Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) value(n node) any {
	var v any
	_ = d.md.PrimitiveDecode(n.prim, &v)
	return v
}

func (d *decoder) typeName(n node) string {
	switch d.md.Type(n.key...) {
	case "String":
		return "a string"
	case "Integer":
		return "an integer"
	case "Float":
		return "a number"
	case "Bool":
		return "a boolean"
	case "Datetime":
		return "a date/time"
	case "Array":
		return "an array"
	case "ArrayHash":
		return "an array of tables"
	case "Hash":
		return "a table"
	}
	switch d.value(n).(type) {
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return "another type"
}

func (d *decoder) str(n node) (string, bool) {
	s, ok := d.value(n).(string)
	if !ok {
		d.add(n, "must be a string in double quotes, not %s", d.typeName(n))
	}
	return s, ok
}

func (d *decoder) boolean(n node) (bool, bool) {
	b, ok := d.value(n).(bool)
	if !ok {
		d.add(n, "must be true or false, not %s", d.typeName(n))
	}
	return b, ok
}

func (d *decoder) unknown(n node, known []string, hint string) {
	msg := "unknown key"
	if s := suggest(n.name(), known); s != "" {
		msg += " (did you mean " + s + "?)"
	} else if hint != "" {
		msg += " (" + hint + ")"
	} else {
		msg += " (known keys: " + strings.Join(known, ", ") + ")"
	}
	d.add(n, "%s", msg)
}

func (d *decoder) config(root map[string]toml.Primitive) *Config {
	cfg := &Config{Path: d.file, CustomerLanguage: LangPortuguese}
	var defNode node
	for _, n := range d.children(nil, root) {
		switch n.name() {
		case "default_profile":
			if s, ok := d.str(n); ok {
				cfg.DefaultProfile, defNode = s, n
			}
		case "language", "customer_language":
			s, ok := d.str(n)
			if !ok {
				continue
			}
			lang, msg := checkLanguage(s)
			if msg != "" {
				d.add(n, "%s", msg)
				continue
			}
			if n.name() == "language" {
				cfg.Language = lang
			} else {
				cfg.CustomerLanguage = lang
			}
		case "profiles":
			kids, ok := d.table(n)
			if !ok {
				d.add(n, "must be a table: write one [profiles.NAME] section per profile, not %s", d.typeName(n))
				continue
			}
			for _, k := range kids {
				if p := d.profile(k); p != nil {
					cfg.Profiles = append(cfg.Profiles, p)
				}
			}
		default:
			hint := ""
			if slices.Contains(profileKeys(), n.name()) {
				hint = n.name() + " belongs in a [profiles.NAME] section"
			}
			d.unknown(n, topKeys(), hint)
		}
	}
	if cfg.DefaultProfile != "" && !slices.Contains(cfg.Names(), cfg.DefaultProfile) {
		d.add(defNode, "no profile named %q (defined: %s)", truncate(cfg.DefaultProfile, 40), strings.Join(cfg.Names(), ", "))
	}
	return cfg
}

const clientIDMsg = "must start with " + api.LivePrefix + " (production) or " + api.TestPrefix + " (sandbox), followed by the id"

func (d *decoder) profile(n node) *Profile {
	p := &Profile{Name: n.name(), DefaultDescription: DefaultDescription, OnPaidTimeout: DefaultOnPaidTimeout}
	if msg := checkProfileName(p.Name); msg != "" {
		d.add(n, "%s", msg)
	}
	kids, ok := d.table(n)
	if !ok {
		d.add(n, "must be a table: write [%s] followed by its keys, not %s", n.key, d.typeName(n))
		return nil
	}
	var (
		envNode    node
		envSet     bool
		env        api.Environment
		sources    []node
		cmdNodes   []node
		secretNode node
	)
	for _, k := range kids {
		switch k.name() {
		case "base_url":
			if s, ok := d.str(k); ok {
				u, msg := checkBaseURL(s)
				if msg != "" {
					d.add(k, "%s", msg)
				}
				p.BaseURL = u
			}
		case "client_id":
			if s, ok := d.str(k); ok {
				e, err := api.EnvironmentOf(s)
				if err != nil || strings.ContainsFunc(s, isSpaceOrControl) {
					d.add(k, "%s", clientIDMsg)
					continue
				}
				p.ClientID, p.Environment = s, e
			}
		case "environment":
			if s, ok := d.str(k); ok {
				switch api.Environment(s) {
				case api.Sandbox, api.Production:
					env, envSet, envNode = api.Environment(s), true, k
				default:
					d.add(k, "must be %q or %q, not %q", api.Sandbox, api.Production, truncate(s, 40))
				}
			}
		case "client_secret_env":
			if s, ok := d.str(k); ok {
				if msg := checkEnvName(s); msg != "" {
					d.add(k, "%s", msg)
				}
				p.secret = secretSource{kind: sourceEnv, env: s, field: "client_secret_env"}
			}
		case "client_secret_cmd":
			if s, ok := d.str(k); ok {
				cmdNodes = append(cmdNodes, k)
				if strings.TrimSpace(s) == "" {
					d.add(k, "is empty; give the command that prints the secret, e.g. \"pass show pixdash/live\"")
				}
				p.secret = secretSource{kind: sourceCmd, cmd: api.Secret(s), field: "client_secret_cmd"}
			}
		case "client_secret":
			secretNode = k
			s, ok := d.value(k).(string)
			if !ok {
				// Never echo the value: it is meant to be a secret.
				d.add(k, "must be a string in double quotes, not %s", d.typeName(k))
				continue
			}
			if strings.TrimSpace(s) == "" {
				d.add(k, "is empty")
			}
			p.secret = secretSource{kind: sourceFile, value: api.Secret(s), field: "client_secret"}
		case "client_secret_keyring":
			if b, ok := d.boolean(k); ok {
				if !b {
					d.add(k, "is false; remove it, or set it to true to read the secret from the OS keyring (pixdash login stores it)")
					continue
				}
				p.secret = secretSource{kind: sourceKeyring, field: "client_secret_keyring", keyringUser: KeyringUser(p.Name), keyringProfile: p.Name}
			}
		case "sub_account":
			if s, ok := d.str(k); ok {
				if msg := checkSubAccount(s); msg != "" {
					d.add(k, "%s", msg)
				}
				p.SubAccount = s
			}
		case "pix_fee":
			if fee, ok := d.money(k); ok {
				p.PixFee, p.HasPixFee = fee, true
			}
		case "default_description":
			if s, ok := d.str(k); ok {
				if msg := checkDescription(s); msg != "" {
					d.add(k, "%s", msg)
					continue
				}
				p.DefaultDescription = s
			}
		case "read_only":
			if b, ok := d.boolean(k); ok {
				p.ReadOnly = b
			}
		case "event_retention_days":
			switch v := d.value(k).(type) {
			case int64:
				if v < 0 || v > 36500 {
					d.add(k, "%d is outside 0 (keep every event) to 36500 days", v)
					continue
				}
				p.EventRetentionDays = int(v)
			default:
				d.add(k, "must be a whole number of days (0 keeps every event), not %s", d.typeName(k))
			}
		case "export_format":
			switch v := d.value(k).(type) {
			case string:
				if f := strings.ToLower(strings.TrimSpace(v)); f == "br" || f == "csv" {
					p.ExportFormat = f
				} else {
					d.add(k, "must be \"br\" (semicolons, decimal comma) or \"csv\" (RFC 4180), not %q", v)
				}
			default:
				d.add(k, "must be \"br\" or \"csv\" in double quotes, not %s", d.typeName(k))
			}
		case "on_paid":
			cmdNodes = append(cmdNodes, k)
			p.OnPaid = d.argv(k)
		case "on_paid_timeout_seconds":
			switch v := d.value(k).(type) {
			case int64:
				if v < 1 || time.Duration(v)*time.Second > MaxOnPaidTimeout {
					d.add(k, "%d is outside 1 to %d seconds", v, int64(MaxOnPaidTimeout/time.Second))
					continue
				}
				p.OnPaidTimeout = time.Duration(v) * time.Second
			default:
				d.add(k, "must be a whole number of seconds, e.g. 30, not %s", d.typeName(k))
			}
		case "print_command":
			cmdNodes = append(cmdNodes, k)
			p.PrintCommand = d.argv(k)
		case "hub", "hub_counter", "hub_wallets", "hub_user", "hub_password_env", "hub_creds", "hub_nkey", "hub_tls_ca", "hub_tls_cert", "hub_tls_key", "hub_inbox":
			d.hubKey(p, k)
		case "webhook":
			w, cmd := d.webhook(k)
			if w != nil && w.secret.kind == sourceKeyring {
				w.secret.keyringUser, w.secret.keyringProfile = KeyringWebhookUser(p.Name), p.Name
			}
			p.Webhook = w
			if cmd != nil {
				cmdNodes = append(cmdNodes, *cmd)
			}
		default:
			hint := ""
			if slices.Contains(webhookKeys(), k.name()) {
				hint = k.name() + " belongs in the [" + append(slices.Clone(n.key), "webhook").String() + "] section"
			}
			d.unknown(k, profileKeys(), hint)
		}
	}
	if p.Hub != nil {
		for _, pr := range checkHub(p.Hub) {
			d.add(n, "%s: %s", pr[0], pr[1])
		}
	}
	if !d.has(kids, "base_url") {
		d.add(n, "missing base_url (required), e.g. base_url = \"https://api.example.com/v2\"")
	}
	if !d.has(kids, "client_id") {
		d.add(n, "missing client_id (required; starts with %s or %s)", api.LivePrefix, api.TestPrefix)
	}
	if envSet && p.Environment != "" && env != p.Environment {
		d.add(envNode, "is %q but client_id starts with %s, which is %s; fix one of them", env, prefixOf(p.Environment), p.Environment)
	}
	for _, k := range kids {
		if k.name() == "client_secret_env" || k.name() == "client_secret_cmd" || k.name() == "client_secret" || k.name() == "client_secret_keyring" {
			sources = append(sources, k)
		}
	}
	switch len(sources) {
	case 0:
		d.add(n, "missing the client secret: set exactly one of client_secret_env (variable name), client_secret_cmd (command that prints it), client_secret_keyring = true (the OS keyring; pixdash login stores it) or client_secret (in this file, which must then be chmod 600)")
	case 1:
	default:
		names := make([]string, len(sources))
		for i, s := range sources {
			names[i] = s.name()
		}
		d.add(sources[1], "only one client secret source is allowed, found %s", strings.Join(names, " and "))
	}
	if secretNode.key != nil && d.mode&0o077 != 0 {
		d.add(secretNode, "this file holds client_secret but its mode %#o lets group or others read or write it; fix: chmod 600 %s (or move the secret to client_secret_env or client_secret_cmd)", d.mode, shellQuote(d.file))
	}
	if d.mode&0o022 != 0 {
		for _, c := range cmdNodes {
			d.add(c, "this file runs a command but its mode %#o lets group or others change it; fix: chmod 600 %s", d.mode, shellQuote(d.file))
		}
	}
	return p
}

// argv decodes a command given as an array of strings (on_paid, print_command): the program, then its
// arguments, run without a shell. The program must be non-blank; no element may hold a NUL
// byte (the system cannot pass it). Nil after a problem.
func (d *decoder) argv(n node) []string {
	const example = `e.g. ["lp", "-d", "balcao"] (the program, then its arguments; no shell is used)`
	list, ok := d.value(n).([]any)
	if !ok {
		d.add(n, "must be an array of strings, %s, not %s", example, d.typeName(n))
		return nil
	}
	if len(list) == 0 {
		d.add(n, "is empty; give the program and its arguments, %s, or remove the key", example)
		return nil
	}
	if len(list) > MaxOnPaidArgs {
		d.add(n, "has %d elements; at most %d", len(list), MaxOnPaidArgs)
		return nil
	}
	out := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		switch {
		case !ok:
			d.add(n, "element %d must be a string in double quotes, %s", i+1, example)
			return nil
		case strings.ContainsRune(s, 0):
			d.add(n, "element %d holds a NUL character", i+1)
			return nil
		case len(s) > MaxOnPaidArgLen:
			d.add(n, "element %d is longer than %d bytes", i+1, MaxOnPaidArgLen)
			return nil
		}
		out[i] = s
	}
	if strings.TrimSpace(out[0]) == "" {
		d.add(n, "its first element, the program, is empty; %s", example)
		return nil
	}
	return out
}

// checkArgv validates a command built in code (Parse checks the file's on_paid and
// print_command itself).
func checkArgv(argv []string) string {
	switch {
	case len(argv) == 0:
		return "is empty; give the program and its arguments"
	case len(argv) > MaxOnPaidArgs:
		return fmt.Sprintf("has %d elements; at most %d", len(argv), MaxOnPaidArgs)
	case strings.TrimSpace(argv[0]) == "":
		return "its first element, the program, is empty"
	}
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return fmt.Sprintf("element %d holds a NUL character", i+1)
		}
	}
	return ""
}

// has reports whether a key named name is among kids (present even if invalid).
func (d *decoder) has(kids []node, name string) bool {
	return slices.ContainsFunc(kids, func(k node) bool { return k.name() == name })
}

// webhook decodes [profiles.NAME.webhook]; it also returns the secret_cmd node, if any.
func (d *decoder) webhook(n node) (*Webhook, *node) {
	kids, ok := d.table(n)
	if !ok {
		d.add(n, "must be a table: write [%s] followed by listen and secret_env or secret_cmd, not %s", n.key, d.typeName(n))
		return nil, nil
	}
	w := &Webhook{Listen: DefaultListen, Tolerance: DefaultTolerance}
	var sources []node
	var cmd *node
	var listenNode, certNode, keyNode *node
	for _, k := range kids {
		switch k.name() {
		case "listen":
			if s, ok := d.str(k); ok {
				if msg := checkListen(s); msg != "" {
					d.add(k, "%s", msg)
				}
				w.Listen = s
				kk := k
				listenNode = &kk
			}
		case "secret_env":
			if s, ok := d.str(k); ok {
				sources = append(sources, k)
				if msg := checkEnvName(s); msg != "" {
					d.add(k, "%s", msg)
				}
				w.secret = secretSource{kind: sourceEnv, env: s, field: "webhook.secret_env"}
			}
		case "secret_cmd":
			if s, ok := d.str(k); ok {
				sources = append(sources, k)
				if strings.TrimSpace(s) == "" {
					d.add(k, "is empty; give the command that prints the signing secret")
				}
				w.secret = secretSource{kind: sourceCmd, cmd: api.Secret(s), field: "webhook.secret_cmd"}
				kk := k
				cmd = &kk
			}
		case "secret_keyring":
			if b, ok := d.boolean(k); ok {
				if !b {
					d.add(k, "is false; remove it, or set it to true to read the signing secret from the OS keyring (pixdash login stores it)")
					continue
				}
				sources = append(sources, k)
				w.secret = secretSource{kind: sourceKeyring, field: "webhook.secret_keyring"}
			}
		case "signature_header":
			if s, ok := d.str(k); ok {
				if msg := checkHeaderName(s); msg != "" {
					d.add(k, "%s", msg)
					continue
				}
				w.SignatureHeader = s
			}
		case "tolerance":
			if t, ok := d.tolerance(k); ok {
				w.Tolerance = t
			}
		case "tls_cert", "tls_key":
			s, ok := d.str(k)
			if !ok {
				continue
			}
			if strings.TrimSpace(s) == "" {
				d.add(k, "is empty; give the path of a PEM file")
				continue
			}
			kk := k
			if k.name() == "tls_cert" {
				w.TLSCert, certNode = d.resolvePath(s), &kk
			} else {
				w.TLSKey, keyNode = d.resolvePath(s), &kk
			}
		default:
			hint := ""
			if k.name() == "secret" || k.name() == "signing_secret" {
				hint = "the signing secret is never read from this file; use secret_env or secret_cmd"
			}
			d.unknown(k, webhookKeys(), hint)
		}
	}
	if len(sources) > 1 {
		d.add(sources[1], "only one signing secret source is allowed, found %s and %s", sources[0].name(), sources[1].name())
	}
	if certNode != nil || keyNode != nil {
		certMsg, keyMsg := checkKeyPair(w.TLSCert, w.TLSKey)
		switch {
		case certNode == nil:
			d.add(*keyNode, "%s", keyMsg)
		case keyNode == nil:
			d.add(*certNode, "%s", certMsg)
		default:
			if certMsg != "" {
				d.add(*certNode, "%s", certMsg)
			}
			if keyMsg != "" {
				d.add(*keyNode, "%s", keyMsg)
			}
		}
	}
	if w.PlainBeyondLoopback() && listenNode != nil {
		d.warns = append(d.warns, Problem{File: d.file, Line: d.line(*listenNode), Key: listenNode.key.String(), Msg: plainListenWarning(w.Listen)})
	}
	return w, cmd
}

// resolvePath makes a relative path relative to the config file's directory.
func (d *decoder) resolvePath(p string) string {
	if filepath.IsAbs(p) || d.file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(d.file), p)
}

// money reads pix_fee from a decimal string or a TOML number, exactly.
func (d *decoder) money(n node) (api.Money, bool) {
	var text string
	switch v := d.value(n).(type) {
	case string:
		text = strings.TrimSpace(v)
	case int64:
		text = strconv.FormatInt(v, 10)
	case float64:
		text = strconv.FormatFloat(v, 'f', -1, 64)
		// Prefer the literal as written, so 0.999 is not silently rounded by float64.
		if raw, ok := d.rawNumber(n, v); ok {
			text = raw
		}
	default:
		d.add(n, "must be a decimal amount such as \"0.99\", not %s", d.typeName(n))
		return 0, false
	}
	m, err := api.ParseDecimal(text)
	switch {
	case errors.Is(err, api.ErrMoneyPrecision):
		d.add(n, "%q has more than 2 decimal places", truncate(text, 40))
		return 0, false
	case err != nil:
		d.add(n, "%q is not a decimal amount such as \"0.99\"", truncate(text, 40))
		return 0, false
	case m < 0:
		d.add(n, "must not be negative")
		return 0, false
	}
	return m, true
}

// tolerance reads webhook.tolerance: a duration string ("300s", "5m") or whole seconds.
func (d *decoder) tolerance(n node) (time.Duration, bool) {
	var t time.Duration
	switch v := d.value(n).(type) {
	case string:
		text := strings.TrimSpace(v)
		dur, err := time.ParseDuration(text)
		if err != nil {
			d.add(n, "%q is not a duration; write it like \"300s\" or \"5m\", or as whole seconds (300)", clean(v, 40))
			return 0, false
		}
		t = dur
	case int64:
		if v < 0 || v > int64(MaxTolerance/time.Second) {
			d.add(n, "%d seconds is outside %s to %s", v, MinTolerance, fmtDuration(MaxTolerance))
			return 0, false
		}
		t = time.Duration(v) * time.Second
	default:
		d.add(n, "must be a duration such as \"300s\" or \"5m\", or whole seconds, not %s", d.typeName(n))
		return 0, false
	}
	if msg := checkTolerance(t); msg != "" {
		d.add(n, "%s", msg)
		return 0, false
	}
	return t, true
}

// rawNumber returns the float literal as written in the file when the decoder's position points at it.
func (d *decoder) rawNumber(n node, v float64) (string, bool) {
	return rawAt(d.source, d.pos(n), v)
}

// ---- checks shared by Parse and Validate ----

var (
	profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)
	envNameRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

func checkProfileName(name string) string {
	if profileNameRE.MatchString(name) {
		return ""
	}
	return "profile names use 1 to 32 letters, digits, '-' or '_', starting with a letter or digit"
}

// ParseLanguage reads a language as the config's language and customer_language and the
// command line's --lang say it, with the catalog's one parser (i18n.Parse): "en", or "pt-BR"
// also written "pt", "pt_BR" or in any case. It returns LangEnglish or LangPortuguese; ok is
// false for anything else.
func ParseLanguage(s string) (lang string, ok bool) {
	l, ok := i18n.Parse(s)
	return string(l), ok
}

// LocaleLanguage reads a POSIX locale name such as "pt_BR.UTF-8" or "pt_BR@euro" (i18n.ParseLocale):
// its language and territory go through ParseLanguage, the codeset and modifier are ignored.
// "C", "POSIX" and anything ParseLanguage does not know give ok false.
func LocaleLanguage(locale string) (lang string, ok bool) {
	l, ok := i18n.ParseLocale(locale)
	return string(l), ok
}

// EnvLanguage is the language the environment asks for (i18n.FromEnv), in POSIX order: the
// first non-empty of LC_ALL, LC_MESSAGES and LANG decides; pt_BR (and pt) give LangPortuguese,
// and anything else, "C" and "POSIX" included, or no locale at all, LangEnglish.
func EnvLanguage(getenv func(string) string) string {
	return string(i18n.FromEnv(getenv))
}

// DashboardLanguage is the language of the merchant's screens and reports when no --lang
// says: the config's language when it sets one, else the environment's (EnvLanguage). A nil
// Config (demo mode, no file) leaves it to the environment.
func (c *Config) DashboardLanguage(getenv func(string) string) string {
	if c != nil && c.Language != "" {
		return c.Language
	}
	return EnvLanguage(getenv)
}

func checkLanguage(s string) (string, string) {
	if lang, ok := ParseLanguage(s); ok {
		return lang, ""
	}
	return "", fmt.Sprintf("%q is not supported; use %q or %q", truncate(s, 20), LangEnglish, LangPortuguese)
}

func checkSubAccount(s string) string {
	if api.ValidateWallet(s) == nil {
		return ""
	}
	return fmt.Sprintf("%q is not a sub-account reference: use 2 to 32 lowercase letters, digits, '-' or '_' starting with a letter or digit, or \"principal\"", truncate(s, 40))
}

func checkEnvName(s string) string {
	if envNameRE.MatchString(s) && len(s) <= 128 {
		return ""
	}
	// Never echo the value: people sometimes paste the secret itself here.
	return "must be the NAME of an environment variable (letters, digits and '_'), not the secret itself"
}

// checkBaseURL validates base_url and returns it without a trailing slash.
func checkBaseURL(s string) (string, string) {
	if s == "" {
		return "", "is empty; e.g. base_url = \"https://api.example.com/v2\""
	}
	if strings.ContainsFunc(s, isSpaceOrControl) || unsafeText(s) {
		return "", "must not contain spaces, control characters or invisible ones (bidi, zero-width)"
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || !u.IsAbs() {
		return "", "must be an absolute URL such as https://api.example.com/v2"
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", "must start with https:// (or http:// for a loopback host)"
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", "has no host; e.g. https://api.example.com/v2"
	}
	if u.User != nil {
		return "", "must not contain user:password@; credentials go in client_secret_env, client_secret_cmd or client_secret"
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return "", "must not have a query (?...) or fragment (#...)"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", "has an invalid port"
		}
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return "", fmt.Sprintf("plain http:// is allowed only for loopback hosts (localhost, 127.0.0.1, ::1); %s needs https://", truncate(u.Hostname(), 60))
	}
	trimmed := strings.TrimSuffix(s, "/")
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" || path[strings.LastIndexByte(path, '/')+1:] != "v2" {
		return trimmed, "last path segment must be v2 (the API version), e.g. https://api.example.com/v2"
	}
	return trimmed, ""
}

// checkDescription validates default_description: non-blank, at most MaxDescription runes, one line.
func checkDescription(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is blank; give the description new charges start with, e.g. \"Venda\" (or remove the key for that default)"
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case unsafeText(s):
		return "must be one line without control characters or invisible ones (bidi, zero-width)"
	}
	if n := utf8.RuneCountInString(s); n > MaxDescription {
		return fmt.Sprintf("is %d characters long; the service accepts at most %d", n, MaxDescription)
	}
	return ""
}

// maxHeaderName bounds signature_header; real header names are far shorter.
const maxHeaderName = 64

// checkHeaderName validates an HTTP header name (an RFC 9110 token).
func checkHeaderName(s string) string {
	if s == "" {
		return "is empty; give the header the signature arrives in, e.g. \"X-Pague-Signature\" (or remove the key)"
	}
	if len(s) > maxHeaderName {
		return fmt.Sprintf("is longer than %d characters; give a header name such as \"X-Pague-Signature\"", maxHeaderName)
	}
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return fmt.Sprintf("%q is not an HTTP header name: use letters, digits and '-' (no spaces or ':'), e.g. \"X-Pague-Signature\"", clean(s, 40))
		}
	}
	return ""
}

// isTokenChar reports whether c may appear in an HTTP token (RFC 9110 tchar).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// checkTolerance checks webhook.tolerance against MinTolerance and MaxTolerance.
func checkTolerance(d time.Duration) string {
	if d < MinTolerance || d > MaxTolerance {
		return fmt.Sprintf("%s is outside %s to %s", fmtDuration(d), MinTolerance, fmtDuration(MaxTolerance))
	}
	return ""
}

// fmtDuration prints d without Go's trailing zero units (24h, not 24h0m0s).
func fmtDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// checkListen validates a host:port listen address.
func checkListen(s string) string {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "must be host:port, e.g. \"127.0.0.1:8085\" (port 0 picks a free port)"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || !allDigits(port) {
		return "has an invalid port; use a number from 0 to 65535"
	}
	if host == "" || host == "localhost" {
		return ""
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	if !validHostname(host) {
		return "has an invalid host; use an IP address, localhost or a host name"
	}
	return ""
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

func validHostname(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func prefixOf(env api.Environment) string {
	if env == api.Production {
		return api.LivePrefix
	}
	return api.TestPrefix
}

// ---- helpers ----

func stripBOM(s string) string {
	switch {
	case strings.HasPrefix(s, "\xef\xbb\xbf"):
		return s[3:]
	case strings.HasPrefix(s, "\xff\xfe"), strings.HasPrefix(s, "\xfe\xff"):
		return s[2:]
	}
	return s
}

// precheck refuses text whose shape would make the TOML decoder slow: too many keys or too deep nesting.
// It skips strings and comments and otherwise counts '=' and header lines, dots and open brackets.
func precheck(text string) (line int, msg string) {
	line = 1
	keys, dots, depth := 0, 0, 0
	lineStart := true // only blanks so far on this line
	for i := 0; i < len(text); i++ {
		c := text[i]
		wasLineStart := lineStart
		lineStart = lineStart && (c == ' ' || c == '\t')
		switch c {
		case '\n':
			line++
			dots = 0
			lineStart = true
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			delim := text[i : i+1]
			if strings.HasPrefix(text[i:], strings.Repeat(delim, 3)) {
				delim = strings.Repeat(delim, 3)
			}
			j, closed := i+len(delim), false
			for j < len(text) {
				if strings.HasPrefix(text[j:], delim) {
					closed = true
					break
				}
				if text[j] == '\n' {
					if len(delim) == 1 {
						break // unterminated; the decoder reports it
					}
					line++
				}
				if text[j] == '\\' && c == '"' && j+1 < len(text) {
					j++ // skip the escaped byte
					if text[j] == '\n' {
						line++
					}
				}
				j++
			}
			if closed {
				i = j + len(delim) - 1
			} else {
				i = j - 1 // let the loop see the newline or the end
			}
		case '=':
			keys++
			dots = 0
		case '.':
			dots++
		case '[', '{':
			depth++
			if c == '[' && wasLineStart {
				keys++ // a table header
			}
			dots = 0
		case ']', '}':
			depth = max(depth-1, 0)
			dots = 0
		case ',':
			dots = 0
		}
		if keys > maxKeys {
			return line, fmt.Sprintf("more than %d keys; is this the right file?", maxKeys)
		}
		if dots > maxNesting || depth > maxNesting {
			return line, fmt.Sprintf("keys, tables or values nested more than %d levels deep", maxNesting)
		}
	}
	return 0, ""
}

// syntaxProblem turns a toml error into a Problem, hiding messages that could quote a secret.
func syntaxProblem(file, text string, err error) Problem {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return Problem{File: file, Msg: "cannot read TOML"}
	}
	p := Problem{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
	if st := pe.Position.Start; st > 0 && st <= len(text) {
		// The byte offset is exact; the reported line is one too far when the culprit is a newline.
		p.Line = 1 + strings.Count(text[:st], "\n")
	}
	if mentionsSecret(pe.LastKey) || mentionsSecret(lineKey(text, p.Line)) || mentionsSecret(lineKey(text, pe.Position.Line)) {
		p.Msg = "invalid TOML on this line (details hidden because it may hold a secret); strings need double quotes, e.g. client_secret = \"...\""
	}
	p.Msg = clean(p.Msg, 200)
	return p
}

// mentionsSecret reports whether a dotted key ends in a key whose value is a secret.
func mentionsSecret(key string) bool {
	return strings.HasSuffix(strings.Trim(strings.TrimSpace(key), `"'`), "client_secret")
}

// lineKey returns the part before '=' of a 1-based line of text.
func lineKey(text string, line int) string {
	if line < 1 {
		return ""
	}
	for i := 1; i < line; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	k, _, _ := strings.Cut(text, "=")
	return k
}

// rawAt returns the number literal at pos in text when it really is the literal of v.
func rawAt(text string, pos toml.Position, v float64) (string, bool) {
	if pos.Len <= 0 || pos.Start < 0 || pos.Start+pos.Len > len(text) {
		return "", false
	}
	raw := strings.ReplaceAll(text[pos.Start:pos.Start+pos.Len], "_", "")
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != v {
		return "", false
	}
	return raw, true
}

// suggest returns the known key closest to name, if it is close enough to be a typo.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	lower := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	for _, k := range known {
		if lower == k {
			return k
		}
		dist := osaDistance(lower, k)
		if dist < bestD && dist*3 <= len(k) {
			best, bestD = k, dist
		}
	}
	return best
}

// osaDistance is the optimal-string-alignment edit distance (adjacent swaps cost 1).
func osaDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// unsafeText reports whether s holds anything api/safetext would change: C0 and C1 control
// characters, DEL, line separators, bidi controls, zero-width and other invisible characters.
func unsafeText(s string) bool { return safetext.Clean(s) != s }

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError || r == '\u00a0'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// clean passes a text from outside (a value of the file, a parser's or a command's message)
// through api/safetext, the one sanitizer (controls, bidi and zero-width characters), and cuts
// it to at most n bytes on a rune boundary.
func clean(s string, n int) string { return truncate(safetext.Clean(s), n) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// shellQuote quotes a path for a copy-pasteable shell command, only when needed.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
