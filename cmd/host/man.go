package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCommand writes a man page per command (section 1). It is hidden:
// the release build runs it to put the pages in the archives.
func newManCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of every command into DIR",
		Hidden: true,
		Args:   exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			header := &doc.GenManHeader{Title: "PLUGHOST", Section: "1", Source: "plughost " + version}
			if err := doc.GenManTree(root, header, args[0]); err != nil {
				return fmt.Errorf("write man pages to %s: %w", args[0], err)
			}
			fmt.Fprintf(g.stdout, "wrote the man pages to %s\n", args[0])
			return nil
		},
	}
}
