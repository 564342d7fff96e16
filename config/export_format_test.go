package config

import (
	"strings"
	"testing"
)

func TestExportFormat(t *testing.T) {
	base := "[profiles.shop]\nbase_url = \"https://api.example.com/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"X\"\n"
	for _, tc := range []struct {
		line, want, err string
	}{
		{"", "", ""},
		{`export_format = "br"`, "br", ""},
		{`export_format = "CSV"`, "csv", ""},
		{`export_format = "xlsx"`, "", `profiles.shop.export_format: must be "br"`},
		{`export_format = 1`, "", `must be "br" or "csv" in double quotes`},
	} {
		cfg, err := Parse("config.toml", []byte(base+tc.line+"\n"), 0o600)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if got := cfg.Profiles[0].ExportFormat; got != tc.want {
			t.Errorf("%q: ExportFormat = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestExportDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/h"}, "/d/pixdash/exports"},
		{map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/h"}, "/h/.local/share/pixdash/exports"},
		{map[string]string{"HOME": "/h"}, "/h/.local/share/pixdash/exports"},
		{map[string]string{}, ""},
	} {
		if got := ExportDir(env(tc.env)); got != tc.want {
			t.Errorf("ExportDir(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
