package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/manage"
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
	res, err := g.manager().RemoveServer(name, manage.WriteOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Removed server %q from %s (previous version kept in %s).\n", name, res.File, res.Backup)
	return nil
}
