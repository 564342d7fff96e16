package config

import (
	"strings"
	"testing"
)

// TestSharedWebhookPortWarned: config check reports two profiles whose receivers listen on one
// port (the second would open without a receiver); distinct ports, port 0 and different
// loopback hosts are fine (issue 21 item 16).
func TestSharedWebhookPortWarned(t *testing.T) {
	profile := func(name, listen string) string {
		return "[profiles." + name + "]\nbase_url = \"https://api.example.com/v2\"\nclient_id = \"mp_test_abc123\"\nclient_secret_env = \"S\"\n" +
			"[profiles." + name + ".webhook]\nsecret_env = \"WH\"\nlisten = \"" + listen + "\"\n"
	}
	cases := []struct {
		name string
		doc  string
		want string // "" for no warning
	}{
		{"same address", profile("loja", "127.0.0.1:8787") + profile("quiosque", "127.0.0.1:8787"), `profiles "loja" and "quiosque" both receive webhooks on port 8787`},
		{"every interface and loopback", profile("loja", "0.0.0.0:8787") + profile("quiosque", "127.0.0.1:8787"), `profiles "loja" and "quiosque" both receive webhooks on port 8787`},
		{"distinct ports", profile("loja", "127.0.0.1:8787") + profile("quiosque", "127.0.0.1:8788"), ""},
		{"ephemeral", profile("loja", "127.0.0.1:0") + profile("quiosque", "127.0.0.1:0"), ""},
		{"different hosts", profile("loja", "127.0.0.1:8787") + profile("quiosque", "127.0.0.2:8787"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse(testFile, []byte(tc.doc), 0o600)
			if err != nil {
				t.Fatal(err)
			}
			var shared []string
			for _, w := range cfg.Warnings {
				if strings.Contains(w.Msg, "both receive webhooks") {
					shared = append(shared, w.Error())
				}
			}
			switch {
			case tc.want == "" && len(shared) > 0:
				t.Errorf("warned: %v", shared)
			case tc.want != "" && (len(shared) != 1 || !strings.Contains(shared[0], tc.want) || !strings.Contains(shared[0], "profiles.quiosque.webhook.listen")):
				t.Errorf("warnings %v, want one with %q", shared, tc.want)
			}
		})
	}
}
