package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newMCPRemoveCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "remove <name>",
		Short: "Remove a server from the user config file",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.removeServer(args[0])
		},
	}
}

func (g *globals) removeServer(name string) error {
	ed, err := g.beginEdit()
	if err != nil {
		return err
	}
	names, err := ed.serverNames()
	if err != nil {
		return err
	}
	if len(names) == 0 && !ed.file.Exists {
		return fmt.Errorf("no server named %q: %s does not exist yet (add servers with plughost mcp add)", name, ed.file.Path)
	}
	found, err := ed.remove("tools", "mcp", "servers", name)
	if err != nil {
		return err
	}
	if !found {
		configured := "none"
		if len(names) > 0 {
			configured = strings.Join(names, ", ")
		}
		return fmt.Errorf("no server named %q in %s (configured: %s)", name, ed.file.Path, configured)
	}
	if err := ed.commit(); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Removed server %q from %s (previous version kept in %s).\n", name, ed.file.Path, ed.file.BackupPath())
	return nil
}
