package main

import (
	"io"

	"github.com/spf13/cobra"
)

// cliCommands are the command line's commands for scripts (issue 24), beside the dashboard's.
func cliCommands(stdout, stderr io.Writer) []*cobra.Command {
	return []*cobra.Command{
		newChargeCmd(stdout, stderr), newRefundCmd(stdout, stderr), newWithdrawCmd(stdout, stderr),
		newWalletsCmd(stdout, stderr), newSubAccountCmd(stdout, stderr), newProjectsCmd(stdout, stderr), newBlocksCmd(stdout, stderr), newWhoamiCmd(stdout, stderr), newTriggerCmd(stdout, stderr), newListenCmd(stdout, stderr),
		newCompletionCmd(stdout), newManCmd(stderr), newLoginCmd(stdout, stderr),
	}
}
