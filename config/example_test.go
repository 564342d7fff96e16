package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

func TestExampleParses(t *testing.T) {
	cfg, err := Parse(testFile, []byte(Example), 0o600)
	if err != nil {
		t.Fatalf("Example does not parse:\n%v", err)
	}
	if got := strings.Join(cfg.Names(), ","); got != "sandbox,live" {
		t.Fatalf("profiles = %s", got)
	}
	sb, live := cfg.Profiles[0], cfg.Profiles[1]
	if sb.Environment != api.Sandbox || sb.SecretSource() != "environment variable PIXDASH_SANDBOX_SECRET" {
		t.Errorf("sandbox profile: %v", sb)
	}
	if live.Environment != api.Production || live.SecretSource() != "command (client_secret_cmd)" {
		t.Errorf("live profile: %v", live)
	}
	for _, p := range cfg.Profiles {
		if !p.HasPixFee || p.PixFee != 99 || !p.Webhook.Enabled() {
			t.Errorf("profile %s: fee %d (set %v), webhook %v", p.Name, p.PixFee, p.HasPixFee, p.Webhook)
		}
	}
	if sb.DefaultDescription != "Venda" || live.DefaultDescription != "Venda no balcão" {
		t.Errorf("default descriptions: %q, %q", sb.DefaultDescription, live.DefaultDescription)
	}
	if sb.Webhook.SignatureHeader != "X-Pague-Signature" || sb.Webhook.Tolerance != 300*time.Second {
		t.Errorf("sandbox webhook: %v", sb.Webhook)
	}
	if live.Webhook.SignatureHeader != "" || live.Webhook.Tolerance != DefaultTolerance {
		t.Errorf("live webhook defaults: %v", live.Webhook)
	}
	if p, err := cfg.Profile(""); err != nil || p != sb {
		t.Errorf("default profile: %v, %v", p, err)
	}
	// It also parses when the file is readable by others: it holds no secret.
	if _, err := Parse(testFile, []byte(Example), 0o644); err != nil {
		t.Errorf("Example with mode 0644: %v", err)
	}
}

func TestExampleShowsEveryKey(t *testing.T) {
	for _, keys := range [][]string{topKeys(), profileKeys(), webhookKeys()} {
		for _, k := range keys {
			if k == "profiles" || k == "webhook" {
				k = `\[profiles\.\w+(\.webhook)?\]`
			} else {
				k = regexp.QuoteMeta(k) + `\s*=`
			}
			if !regexp.MustCompile(`(?m)^#?\s*` + k).MatchString(Example) {
				t.Errorf("Example does not show %s", k)
			}
		}
	}
}

func TestWriteExample(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nested", "pixdash", "config.toml")
	if err := WriteExample(path, ""); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %#o, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %#o, want 0700", di.Mode().Perm())
	}
	if _, err := Load(path); err != nil {
		t.Errorf("written example does not load: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// Refuses to overwrite, leaving the file as it was.
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = WriteExample(path, "")
	if !errors.Is(err, fs.ErrExist) || err.Error() != path+" already exists; not overwriting it" {
		t.Fatalf("overwrite: got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "# mine\n" {
		t.Errorf("existing file changed: %q", b)
	}
	entries, _ = os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// The Example leaves the language to the environment; ExampleFor writes it when asked.
func TestExampleForLanguage(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"", ""}, {"pt-BR", LangPortuguese}, {"pt_BR", LangPortuguese}, {"en", LangEnglish},
	} {
		text, err := ExampleFor(tc.lang)
		if err != nil {
			t.Fatalf("ExampleFor(%q): %v", tc.lang, err)
		}
		cfg, err := Parse(testFile, []byte(text), 0o600)
		if err != nil {
			t.Fatalf("ExampleFor(%q) does not parse: %v", tc.lang, err)
		}
		if cfg.Language != tc.want {
			t.Errorf("ExampleFor(%q): Language = %q, want %q", tc.lang, cfg.Language, tc.want)
		}
	}
	if _, err := ExampleFor("fr"); err == nil {
		t.Error(`ExampleFor("fr") accepted`)
	}
}
