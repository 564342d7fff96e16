package main

import (
	"io"
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
