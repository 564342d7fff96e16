package config

import (
	"path/filepath"
	"strings"
)

// EnvConfig names the environment variable that points at a config file.
const EnvConfig = "PIXDASH_CONFIG"

// EnvProfile names the environment variable that picks a profile (read by the caller).
const EnvProfile = "PIXDASH_PROFILE"

// Locate picks the config file: --config flag, then $PIXDASH_CONFIG, then $XDG_CONFIG_HOME, then ~/.config.
// explicit reports a flag or environment choice, whose absence is an error rather than demo mode.
// path is "" when nothing is given and neither XDG_CONFIG_HOME nor HOME is set.
func Locate(flagPath string, getenv func(string) string) (path string, explicit bool) {
	if flagPath != "" {
		return expandHome(flagPath, getenv), true
	}
	if p := getenv(EnvConfig); p != "" {
		return expandHome(p, getenv), true
	}
	if dir := xdgDir(getenv, "XDG_CONFIG_HOME", ".config"); dir != "" {
		return filepath.Join(dir, "pixdash", "config.toml"), false
	}
	return "", false
}

// StateDir is where per-profile state lives: $XDG_STATE_HOME/pixdash, else ~/.local/state/pixdash ("" if neither is set).
func StateDir(getenv func(string) string) string {
	if dir := xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state")); dir != "" {
		return filepath.Join(dir, "pixdash")
	}
	return ""
}

// ExportDir is where the dashboard writes exports: $XDG_DATA_HOME/pixdash/exports, else
// ~/.local/share/pixdash/exports ("" if neither is set).
func ExportDir(getenv func(string) string) string {
	if dir := xdgDir(getenv, "XDG_DATA_HOME", filepath.Join(".local", "share")); dir != "" {
		return filepath.Join(dir, "pixdash", "exports")
	}
	return ""
}

// xdgDir returns $name when it is absolute (the XDG spec ignores relative values), else $HOME/fallback.
func xdgDir(getenv func(string) string, name, fallback string) string {
	if d := getenv(name); d != "" && filepath.IsAbs(d) {
		return d
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, fallback)
	}
	return ""
}

// expandHome replaces a leading "~/" with $HOME, as a shell would have for an unquoted path.
func expandHome(p string, getenv func(string) string) string {
	home := getenv("HOME")
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}
