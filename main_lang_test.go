package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
	"github.com/rogpeppe/go-internal/testscript"

	"pixdash/config"
	"pixdash/ui"
)

// TestMain runs the package's tests in an English locale whatever the machine's, so that a
// test which does not set the language itself sees the same default everywhere.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	// The pixdash command of testscript's scripts (main_script_test.go) is this binary.
	testscript.Main(m, map[string]func(){"pixdash": pixdashMain})
}

// setLocale sets the three locale variables the merchant's language is read from.
func setLocale(t *testing.T, lcAll, lcMessages, lang string) {
	t.Helper()
	t.Setenv("LC_ALL", lcAll)
	t.Setenv("LC_MESSAGES", lcMessages)
	t.Setenv("LANG", lang)
}

// The merchant's language: --lang, then the config's language, then the first non-empty of
// LC_ALL, LC_MESSAGES and LANG (POSIX order; C and POSIX are English).
func TestMerchantLangPrecedence(t *testing.T) {
	pt := &config.Config{Language: config.LangPortuguese}
	en := &config.Config{Language: config.LangEnglish}
	unset := &config.Config{} // the file has no language line
	for _, tc := range []struct {
		name                    string
		flag                    string
		cfg                     *config.Config
		lcAll, lcMessages, lang string
		want                    ui.Lang
	}{
		{name: "demo, LANG pt_BR", lang: "pt_BR.UTF-8", want: ui.LangPT},
		{name: "no language line, LANG pt_BR", cfg: unset, lang: "pt_BR.UTF-8", want: ui.LangPT},
		{name: "no language line, LANG pt_BR without codeset", cfg: unset, lang: "pt_BR", want: ui.LangPT},
		{name: "no language line, LANG pt_BR@modifier", cfg: unset, lang: "pt_BR.utf8@euro", want: ui.LangPT},
		{name: "no language line, LANG en_US", cfg: unset, lang: "en_US.UTF-8", want: ui.LangEN},
		{name: "no language line, LANG C", cfg: unset, lang: "C", want: ui.LangEN},
		{name: "no language line, LANG POSIX", cfg: unset, lang: "POSIX", want: ui.LangEN},
		{name: "no language line, LANG a language pixdash does not speak", cfg: unset, lang: "de_DE.UTF-8", want: ui.LangEN},
		{name: "no locale at all", cfg: unset, want: ui.LangEN},
		{name: "LC_MESSAGES before LANG", cfg: unset, lcMessages: "pt_BR.UTF-8", lang: "en_US.UTF-8", want: ui.LangPT},
		{name: "LC_MESSAGES C before LANG pt_BR", cfg: unset, lcMessages: "C", lang: "pt_BR.UTF-8", want: ui.LangEN},
		{name: "LC_ALL before LC_MESSAGES", cfg: unset, lcAll: "pt_BR.UTF-8", lcMessages: "en_US.UTF-8", lang: "en_US.UTF-8", want: ui.LangPT},
		{name: "LC_ALL POSIX before LANG pt_BR", cfg: unset, lcAll: "POSIX", lang: "pt_BR.UTF-8", want: ui.LangEN},
		{name: "the config's language before the locale", cfg: en, lang: "pt_BR.UTF-8", want: ui.LangEN},
		{name: "the config's pt-BR before an English locale", cfg: pt, lcAll: "en_US.UTF-8", want: ui.LangPT},
		{name: "--lang before the config", flag: "en", cfg: pt, lang: "pt_BR.UTF-8", want: ui.LangEN},
		{name: "--lang before the locale in demo", flag: "pt", lang: "C", want: ui.LangPT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setLocale(t, tc.lcAll, tc.lcMessages, tc.lang)
			got, err := merchantLang(tc.flag, tc.cfg, os.Getenv)
			if err != nil || got != tc.want {
				t.Errorf("merchantLang = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := merchantLang("fr", nil, os.Getenv); err == nil || !strings.Contains(err.Error(), `--lang "fr"`) {
		t.Errorf("--lang fr: %v", err)
	}
}

// pixdash close speaks the locale's language when the config does not say, and the config's
// (or --lang's) when it does.
func TestCloseLanguageFromLocale(t *testing.T) {
	const profile = "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n"
	for _, tc := range []struct {
		name, config, lang string
		args               []string
		want, notWant      string
	}{
		{name: "no language line, LANG pt_BR", config: profile, lang: "pt_BR.UTF-8", want: "FECHAMENTO DE CAIXA"},
		{name: "no language line, LANG C", config: profile, lang: "C", want: "DAY CLOSE", notWant: "FECHAMENTO"},
		{name: "language en, LANG pt_BR", config: "language = \"en\"\n" + profile, lang: "pt_BR.UTF-8", want: "DAY CLOSE", notWant: "FECHAMENTO"},
		{name: "--lang en, LANG pt_BR", config: profile, lang: "pt_BR.UTF-8", args: []string{"--lang", "en"}, want: "DAY CLOSE", notWant: "FECHAMENTO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stateDir := writeConfig(t, tc.config)
			seedStore(t, stateDir, "loja")
			setLocale(t, "", "", tc.lang)
			var out, errb strings.Builder
			args := append([]string{"close", "--offline", "--date", "2025-01-10"}, tc.args...)
			if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), tc.want) ||
				(tc.notWant != "" && strings.Contains(out.String(), tc.notWant)) {
				t.Errorf("exit %d, want %q, stdout %q, stderr %q", code, tc.want, out.String(), errb.String())
			}
		})
	}
}

// The dashboard opens in pt-BR with LANG=pt_BR.UTF-8 and no language in the config, and in
// demo mode (no config at all); the customer's screens keep customer_language's default.
func TestDashboardOpensInLocaleLanguage(t *testing.T) {
	for _, demo := range []bool{true, false} {
		name := "profile without language"
		if demo {
			name = "demo mode"
		}
		t.Run(name, func(t *testing.T) {
			setLocale(t, "", "", "pt_BR.UTF-8")
			var cfg *config.Config
			var p *config.Profile
			if !demo {
				cfgPath, _ := writeConfig(t, "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
				t.Setenv("PIXDASH_TEST_CLIENT_SECRET", "cs-x")
				c, err := config.Load(cfgPath)
				if err != nil {
					t.Fatal(err)
				}
				if c.Language != "" {
					t.Fatalf("config without a language line: Language = %q, want unset", c.Language)
				}
				cfg, p = c, c.Profiles[0]
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts, err := dashboardOptions(ctx, dashboardFlags{}, cfg, p, slog.New(slog.DiscardHandler), os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if opts.Lang != ui.LangPT || opts.CustomerLang != ui.LangPT {
				t.Errorf("languages %q (customer %q), want pt-BR for both", opts.Lang, opts.CustomerLang)
			}
			opts.Bell, opts.Clipboard = func() {}, func(string) {}
			m := ui.New(opts)
			defer m.Close()
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
			var screen bytes.Buffer
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
				screen.Write(b)
				return bytes.Contains(screen.Bytes(), []byte("Cobranças"))
			}, teatest.WithDuration(15*time.Second))
			_ = tm.Quit()
			tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		})
	}
}

// config init writes no active language line unless --lang asks; the environment decides.
func TestConfigInitLanguageLine(t *testing.T) {
	activeLang := regexp.MustCompile(`(?m)^\s*language\s*=`)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		wantLine string // "" for no active language line
	}{
		{name: "no flag", code: 0},
		{name: "--lang pt-BR", args: []string{"--lang", "pt-BR"}, code: 0, wantLine: `language = "pt-BR"`},
		{name: "--lang pt_BR", args: []string{"--lang", "pt_BR"}, code: 0, wantLine: `language = "pt-BR"`},
		{name: "--lang en", args: []string{"--lang", "en"}, code: 0, wantLine: `language = "en"`},
		{name: "--lang fr", args: []string{"--lang", "fr"}, code: exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noConfig(t)
			path := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "pixdash", "config.toml")
			var out, errb strings.Builder
			code := run(append([]string{"config", "init"}, tc.args...), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, out.String(), errb.String())
			}
			b, err := os.ReadFile(path)
			if tc.code != 0 {
				if err == nil {
					t.Errorf("a refused config init wrote %s", path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			lines := activeLang.FindAllString(text, -1)
			switch {
			case tc.wantLine == "" && len(lines) != 0:
				t.Errorf("config init wrote an active language line:\n%s", text)
			case tc.wantLine != "" && (len(lines) != 1 || !strings.Contains(text, "\n"+tc.wantLine+"\n")):
				t.Errorf("want exactly one %s:\n%s", tc.wantLine, text)
			}
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatalf("the written file does not load: %v", err)
			}
			if want, _ := config.ParseLanguage(strings.Trim(strings.TrimPrefix(tc.wantLine, "language = "), `"`)); cfg.Language != want {
				t.Errorf("Language = %q, want %q", cfg.Language, want)
			}
		})
	}
}

// config check without a config file names the path it looked at and the command that
// writes one, and exits 1.
func TestConfigCheckWithoutConfig(t *testing.T) {
	noConfig(t)
	def := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "pixdash", "config.toml")
	other := filepath.Join(t.TempDir(), "elsewhere.toml")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "default path", want: []string{"no config file at " + def, "create one with: pixdash config init (then"}},
		{name: "--config", args: []string{"--config", other}, want: []string{"no config file at " + other, "create one with: pixdash config init --config " + other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := run(append([]string{"config", "check"}, tc.args...), &out, &errb)
			if code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q: %q", w, errb.String())
				}
			}
			if strings.Contains(errb.String(), "stat ") || out.Len() != 0 {
				t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
			}
		})
	}
}
