package config

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"pixdash/api"
)

// Hub is a profile's link to the shop's hub (`pixdash hub`): hub = "nats://…" makes the
// profile a counter that receives its webhook events through NATS JetStream instead of (or as
// well as) its own receiver, and announces the charges it creates to the other counters.
type Hub struct {
	// URL is hub: one or more comma-separated nats:// or tls:// server URLs.
	URL string
	// Counter is hub_counter: this counter's name, unique in the shop (its durable consumer);
	// the profile's name when absent.
	Counter string
	// Wallets is hub_wallets: the wallets whose events this counter receives; when absent, the
	// profile's sub_account (or the main account). AllWallets is hub_wallets = ["*"]: every
	// wallet (the owner's screen).
	Wallets    []string
	AllWallets bool
	// User is hub_user; its password comes from the environment variable hub_password_env.
	User string
	// CredsFile is hub_creds (a .creds file), NKeyFile hub_nkey (a file holding an nkey seed).
	CredsFile, NKeyFile string
	// CAFile, CertFile and KeyFile are hub_tls_ca, hub_tls_cert and hub_tls_key.
	CAFile, CertFile, KeyFile string
	// Inbox is hub_inbox: the prefix of the connection's reply subjects, for servers whose
	// permissions give each user its own inbox ("_INBOX" when absent).
	Inbox string

	passwordEnv string
}

// hubKeys are the profile keys of the hub link, in the order the Example shows them.
func hubKeys() []string {
	return []string{"hub", "hub_counter", "hub_wallets", "hub_user", "hub_password_env", "hub_creds", "hub_nkey", "hub_tls_ca", "hub_tls_cert", "hub_tls_key", "hub_inbox"}
}

// Password resolves hub_password_env ("" when the link has no password).
func (h *Hub) Password(context.Context) (api.Secret, error) {
	if h == nil || h.passwordEnv == "" {
		return "", nil
	}
	v, ok := os.LookupEnv(h.passwordEnv)
	if !ok || v == "" {
		return "", fmt.Errorf("hub_password_env: environment variable %s is not set", h.passwordEnv)
	}
	return api.Secret(v), nil
}

// PasswordEnv is the name of the variable holding the hub password ("" for none).
func (h *Hub) PasswordEnv() string {
	if h == nil {
		return ""
	}
	return h.passwordEnv
}

// TLS reports whether the link requires TLS.
func (h *Hub) TLS() bool {
	return h.CAFile != "" || h.CertFile != "" || strings.Contains(strings.ToLower(h.URL), "tls://")
}

// Authenticated reports whether the link carries credentials.
func (h *Hub) Authenticated() bool {
	return h.User != "" || h.CredsFile != "" || h.NKeyFile != "" || h.CertFile != ""
}

// hubKey decodes one hub_* key of profile p.
func (d *decoder) hubKey(p *Profile, k node) {
	if p.Hub == nil {
		p.Hub = &Hub{}
	}
	h := p.Hub
	if k.name() == "hub_wallets" {
		raw, ok := d.value(k).([]any)
		if !ok {
			d.add(k, `must be an array of wallets, e.g. ["principal", "loja-centro"], or ["*"] for every wallet, not %s`, d.typeName(k))
			return
		}
		for _, v := range raw {
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" {
				d.add(k, "must list wallets as non-empty strings")
				return
			}
			if s == "*" {
				h.AllWallets = true
				continue
			}
			if msg := checkSubAccount(s); s != api.WalletPrincipal && msg != "" {
				d.add(k, "%q: %s", s, msg)
				return
			}
			h.Wallets = append(h.Wallets, s)
		}
		if h.AllWallets && len(h.Wallets) > 0 {
			d.add(k, `"*" already means every wallet: list wallets or "*", not both`)
		}
		return
	}
	s, ok := d.str(k)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" {
		d.add(k, "is empty")
		return
	}
	switch k.name() {
	case "hub":
		if msg := checkHubURL(s); msg != "" {
			d.add(k, "%s", msg)
		}
		h.URL = s
	case "hub_counter":
		if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(".*>/\\", r) }) || len(s) > 64 {
			d.add(k, "must be up to 64 characters without spaces, dots, '*', '>' or slashes, e.g. \"caixa-1\"")
		}
		h.Counter = s
	case "hub_user":
		h.User = s
	case "hub_password_env":
		h.passwordEnv = s
	case "hub_creds":
		h.CredsFile = d.resolvePath(s)
	case "hub_nkey":
		h.NKeyFile = d.resolvePath(s)
	case "hub_tls_ca":
		h.CAFile = d.resolvePath(s)
	case "hub_tls_cert":
		h.CertFile = d.resolvePath(s)
	case "hub_tls_key":
		h.KeyFile = d.resolvePath(s)
	case "hub_inbox":
		h.Inbox = s
	}
}

// checkHub reports what is wrong with a profile's hub link as a whole (key, message pairs).
func checkHub(h *Hub) [][2]string {
	var out [][2]string
	add := func(k, m string) { out = append(out, [2]string{k, m}) }
	if h.URL == "" {
		add("hub", `missing: the hub_* keys need hub = "nats://host:4222" (the shop's pixdash hub)`)
		return out
	}
	if (h.CertFile == "") != (h.KeyFile == "") {
		add("hub_tls_cert", "hub_tls_cert and hub_tls_key go together: set both or neither")
	}
	if h.User != "" && h.passwordEnv == "" {
		add("hub_password_env", "hub_user needs hub_password_env (the name of the variable holding the password)")
	}
	if h.passwordEnv != "" && h.User == "" {
		add("hub_user", "hub_password_env needs hub_user")
	}
	if !hubLoopback(h.URL) && (!h.TLS() || !h.Authenticated()) {
		add("hub", "a hub beyond loopback needs TLS (tls:// or hub_tls_ca) and credentials (hub_user, hub_creds or hub_nkey): pixdash refuses to connect otherwise")
	}
	return out
}

// checkHubURL checks hub's URLs.
func checkHubURL(s string) string {
	for u := range strings.SplitSeq(s, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" || (p.Scheme != "nats" && p.Scheme != "tls") {
			return `must be nats://host:port or tls://host:port (several separated by commas), e.g. "nats://127.0.0.1:4222"`
		}
		if p.User != nil {
			return "must not hold credentials: use hub_user and hub_password_env, hub_creds or hub_nkey"
		}
	}
	return ""
}

// hubLoopback reports whether every URL of s is on loopback.
func hubLoopback(s string) bool {
	for u := range strings.SplitSeq(s, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || !isLoopbackHost(p.Hostname()) {
			return false
		}
	}
	return true
}

// HubCounter is the counter's name: hub_counter, else the profile's name.
func (p *Profile) HubCounter() string {
	if p.Hub != nil && p.Hub.Counter != "" {
		return p.Hub.Counter
	}
	return p.Name
}

// HubWallets is the wallets the counter receives: nil for every wallet, else hub_wallets, else
// the profile's sub_account (or the main account).
func (p *Profile) HubWallets() []string {
	switch {
	case p.Hub == nil || p.Hub.AllWallets:
		return nil
	case len(p.Hub.Wallets) > 0:
		return slices.Clone(p.Hub.Wallets)
	case p.SubAccount != "":
		return []string{p.SubAccount}
	}
	return []string{api.WalletPrincipal}
}

var errNoHub = errors.New("the profile has no hub")

// RequireHub returns the profile's hub link, or an error naming the key to set.
func (p *Profile) RequireHub() (*Hub, error) {
	if p.Hub == nil || p.Hub.URL == "" {
		return nil, fmt.Errorf("profile %s: %w (set hub = \"nats://host:4222\")", p.Name, errNoHub)
	}
	return p.Hub, nil
}
