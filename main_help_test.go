package main

import (
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's --help exits 0 and shows an example, and every command that works on a
// profile takes --profile.
func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || strings.HasPrefix(sub.Name(), "__") {
				continue
			}
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		var out, errb strings.Builder
		if code := run(append(path, "--help"), &out, &errb); code != 0 {
			t.Errorf("%s --help: exit %d (%s)", c.CommandPath(), code, errb.String())
		}
		if c.HasSubCommands() || c == root {
			return
		}
		if !strings.Contains(out.String(), "Examples:") {
			t.Errorf("%s --help shows no example", c.CommandPath())
		}
	}
	walk(root)
}

// version names the VCS revision the build recorded (go build stamps it from git), with
// "+dirty" for a modified work tree and the commit's time.
func TestVersionRevision(t *testing.T) {
	for _, tc := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "2f8d500abc"}, {Key: "vcs.time", Value: "2026-11-27T12:00:00Z"}, {Key: "vcs.modified", Value: "false"}}, "2f8d500abc (2026-11-27T12:00:00Z)"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "2f8d500abc"}, {Key: "vcs.modified", Value: "true"}}, "2f8d500abc+dirty"},
	} {
		if got := revisionOf(tc.settings); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.settings, got, tc.want)
		}
	}
	var out strings.Builder
	if code := run([]string{"version"}, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "pixdash ") {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
}
