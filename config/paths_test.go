package config

import "testing"

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLocate(t *testing.T) {
	full := map[string]string{
		"PIXDASH_CONFIG":  "/env/pixdash.toml",
		"XDG_CONFIG_HOME": "/xdg",
		"HOME":            "/home/u",
	}
	tests := []struct {
		name         string
		flag         string
		env          map[string]string
		want         string
		wantExplicit bool
	}{
		{name: "flag beats everything", flag: "/flag.toml", env: full, want: "/flag.toml", wantExplicit: true},
		{name: "relative flag kept", flag: "my.toml", env: full, want: "my.toml", wantExplicit: true},
		{name: "flag with tilde", flag: "~/c.toml", env: full, want: "/home/u/c.toml", wantExplicit: true},
		{name: "env beats XDG", env: full, want: "/env/pixdash.toml", wantExplicit: true},
		{name: "env with tilde", env: map[string]string{"PIXDASH_CONFIG": "~/p.toml", "HOME": "/home/u"}, want: "/home/u/p.toml", wantExplicit: true},
		{name: "XDG beats HOME", env: map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"}, want: "/xdg/pixdash/config.toml"},
		{name: "relative XDG ignored", env: map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/home/u"}, want: "/home/u/.config/pixdash/config.toml"},
		{name: "HOME fallback", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.config/pixdash/config.toml"},
		{name: "nothing set", env: map[string]string{}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, explicit := Locate(tt.flag, env(tt.env))
			if got != tt.want || explicit != tt.wantExplicit {
				t.Errorf("Locate = %q, %v; want %q, %v", got, explicit, tt.want, tt.wantExplicit)
			}
		})
	}
}

func TestStateDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "XDG", env: map[string]string{"XDG_STATE_HOME": "/st", "HOME": "/home/u"}, want: "/st/pixdash"},
		{name: "relative XDG ignored", env: map[string]string{"XDG_STATE_HOME": "st", "HOME": "/home/u"}, want: "/home/u/.local/state/pixdash"},
		{name: "HOME", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/state/pixdash"},
		{name: "nothing", env: map[string]string{}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StateDir(env(tt.env)); got != tt.want {
				t.Errorf("StateDir = %q, want %q", got, tt.want)
			}
		})
	}
}
