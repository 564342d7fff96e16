package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"pixdash/config"
	"pixdash/state"
)

// newDBCmd is pixdash db: checking and repairing a profile's state database.
func newDBCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Check or repair a profile's state database",
		Args:  noArgs,
	}
	var configPath, profile string
	checkCmd := &cobra.Command{
		Use:   "check",
		Short: "Check every page of the profile's database and its money indexes",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDBCheck(cmd.Context(), configPath, profile, stdout)
		},
	}
	repairCmd := &cobra.Command{
		Use:   "repair",
		Short: "Repair the profile's database: a copy is kept, the indexes are rebuilt from the tables",
		Long: `Checks the profile's state database and, when it is damaged, copies it aside
(<file>.before-repair-<time>) and rebuilds its indexes and counts from the tables. When an index
is too broken to rebuild in place, the tables are copied into a new file that replaces the
damaged one: close every pixdash window of the profile first.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDBRepair(cmd.Context(), configPath, profile, stdout)
		},
	}
	for _, c := range []*cobra.Command{checkCmd, repairCmd} {
		c.Flags().StringVar(&configPath, "config", "", configFlagHelp)
		c.Flags().StringVar(&profile, "profile", "", "profile whose database to check (default $PIXDASH_PROFILE, then default_profile)")
	}
	cmd.AddCommand(checkCmd, repairCmd)
	return cmd
}

func runDBCheck(ctx context.Context, configPath, profileFlag string, stdout io.Writer) error {
	_, p, err := loadProfile(configPath, profileFlag)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	store, err := state.Open(ctx, config.StateDir(os.Getenv), p.Name)
	if err != nil {
		return &exitError{code: exitFailure, err: withRepairHint(p.Name, fmt.Errorf("profile %s: %w", p.Name, err))}
	}
	defer store.Close()
	if err := store.Check(ctx, state.CheckPages); err != nil {
		return &exitError{code: exitFailure, err: withRepairHint(p.Name, fmt.Errorf("profile %s: %w", p.Name, err))}
	}
	fmt.Fprintf(stdout, "%s: no damage found.\n", store.Path())
	return nil
}

func runDBRepair(ctx context.Context, configPath, profileFlag string, stdout io.Writer) error {
	_, p, err := loadProfile(configPath, profileFlag)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := state.Repair(ctx, config.StateDir(os.Getenv), p.Name)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	if len(rep.Found) == 0 {
		fmt.Fprintf(stdout, "%s: no damage found; nothing was changed.\n", rep.File)
		return nil
	}
	fmt.Fprintf(stdout, "%s was damaged:\n", rep.File)
	for _, f := range rep.Found {
		fmt.Fprintf(stdout, "  - %s\n", f)
	}
	fmt.Fprintf(stdout, "A copy of the damaged file is at %s.\nRepaired: the indexes and counts were rebuilt from the tables and the database now checks clean.\n", rep.Backup)
	return nil
}

// withRepairHint adds to the error of a damaged database the command that repairs it.
func withRepairHint(profile string, err error) error {
	if !errors.Is(err, state.ErrDamaged) {
		return err
	}
	return fmt.Errorf("%w\nRepair it with: pixdash db repair --profile %s", err, shellWord(profile))
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
