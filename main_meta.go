package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"pixdash/api"
)

func newCompletionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell to standard output. Load it in the current shell,
or install it where the shell looks for completions.`,
		Example: `  source <(pixdash completion bash)
  pixdash completion zsh > "${fpath[1]}/_pixdash"
  pixdash completion fish > ~/.config/fish/completions/pixdash.fish
  pixdash completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      exactArgs(1, "the shell: bash, zsh, fish or powershell"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(stdout, true)
			case "zsh":
				err = root.GenZshCompletion(stdout)
			case "fish":
				err = root.GenFishCompletion(stdout, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(stdout)
			default:
				return usageError("unknown shell %q: say bash, zsh, fish or powershell", args[0])
			}
			if err != nil {
				return cliError(exitFailure, err)
			}
			return nil
		},
	}
}

func newManCmd(stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write a man page for every command into DIR",
		Example: `  pixdash man /usr/local/share/man/man1 && man pixdash-charge-create`,
		Args:    exactArgs(1, "the directory to write the pages to"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // manual pages are documentation every user may read
				return cliError(exitFailure, err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // pages that do not change from one run to the next
			header := &doc.GenManHeader{Title: "PIXDASH", Section: "1", Source: "pixdash " + api.Version, Manual: "pixdash manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return cliError(exitFailure, err)
			}
			fmt.Fprintf(stderr, "wrote the man pages to %s\n", dir)
			return nil
		},
	}
}

// buildRevision is the version control revision pixdash was built from ("" when the build
// recorded none), with "+dirty" when the work tree had changes.
func buildRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return revisionOf(info.Settings)
}

// revisionOf reads the VCS revision, time and modified flag of a build's settings.
func revisionOf(settings []debug.BuildSetting) string {
	var rev, when string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if dirty {
		rev += "+dirty"
	}
	if when != "" {
		rev += " (" + when + ")"
	}
	return rev
}

// versionLine is what pixdash version prints.
func versionLine() string {
	s := "pixdash " + api.Version
	if rev := buildRevision(); rev != "" {
		s += " " + rev
	}
	return s
}
