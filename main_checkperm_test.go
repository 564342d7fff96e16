package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// pixdash config check tells a credential that signs in but may not create charges from one
// that may, against the emulator's permissions, and creates no charge to find out: a profile
// whose credential lacks PIX:WRITE fails with a message naming it, a full one passes, one in a
// sub-account the credential may not use fails, and the emulator holds no charge afterwards.
func TestConfigCheckCredentialCanCreateCharges(t *testing.T) {
	fx := secretFixture(t)
	readOnly := sandbox.CredentialFixture{ClientID: "mp_test_reader", ClientSecret: api.Secret("cs-reader-0000000000"),
		Permissions: []string{"TRANSACTION:READ", "ACCOUNT:READ"}}
	noSub := sandbox.CredentialFixture{ClientID: "mp_test_nosub", ClientSecret: api.Secret("cs-nosub-00000000000"),
		Permissions: []string{"PIX:WRITE", "TRANSACTION:READ"}} // no sub-account access
	fx.Accounts[0].Credentials = append(fx.Accounts[0].Credentials, readOnly, noSub)
	srv := sandbox.New(fx)
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	var sub string
	for _, s := range fx.Accounts[0].SubAccounts {
		sub = s.Reference
		break
	}
	if sub == "" {
		t.Fatal("the default fixture has no sub-account")
	}

	before := srv.ChargeCount() // the fixture's seeded charges
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("PIXDASH_CHECK_FULL", knownClientSecret)
	t.Setenv("PIXDASH_CHECK_READER", "cs-reader-0000000000")
	t.Setenv("PIXDASH_CHECK_NOSUB", "cs-nosub-00000000000")
	profile := func(name, id, env, extra string) string {
		return "[profiles." + name + "]\nbase_url = \"" + hs.URL + "/v2\"\nclient_id = \"" + id + "\"\nclient_secret_env = \"" + env + "\"\n" + extra
	}
	for _, tc := range []struct {
		name, body, want string
		code             int
	}{
		{"full credential", profile("loja", sandbox.DemoClientID, "PIXDASH_CHECK_FULL", ""), "✔ loja", exitOK},
		{"no PIX:WRITE", profile("leitura", "mp_test_reader", "PIXDASH_CHECK_READER", ""), "may not create charges: it needs the permission PIX:WRITE", exitFailure},
		{"PIX:WRITE in the main account", profile("caixa", "mp_test_nosub", "PIXDASH_CHECK_NOSUB", ""), "✔ caixa", exitOK},
		{"sub-account without access", profile("filial", "mp_test_nosub", "PIXDASH_CHECK_NOSUB", "sub_account = \""+sub+"\"\n"), "SUB_ACCOUNT_FORBIDDEN", exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".toml")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb strings.Builder
			code := checkConfig(path, &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.code, tc.want, out.String(), errb.String())
			}
			t.Log(out.String())
			if tc.code == exitOK && !strings.Contains(out.String(), "may create charges") {
				t.Errorf("a passing check does not say the credential may create charges:\n%s", out.String())
			}
		})
	}
	if n := srv.ChargeCount(); n != before {
		t.Errorf("config check created %d charge(s); it must create none", n-before)
	}
}
