package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/manage"
)

// skeleton is what `mcp edit` opens when there is no config file yet.
const skeleton = `{
  "tools": {
    "mcp": {
      "enabled": true,
      "servers": {}
    }
  }
}
`

func newMCPEditCommand(g *globals) *cobra.Command {
	var include, exclude []string
	cmd := &cobra.Command{
		Use:   "edit [NAME --include-tools GLOB,... --exclude-tools GLOB,...]",
		Short: "Open the user config file in $VISUAL / $EDITOR, then check it; or set a server's tool filters",
		Long: `edit opens a draft copy of your config file in $VISUAL, else $EDITOR, else vi (the
variable may hold arguments, e.g. EDITOR="code --wait"). It works when the file is missing
or invalid. When the editor exits, the draft is checked with the validator plughost runs
with. A valid draft replaces the file (atomically, with a backup); an invalid one is shown
with its problems and, on a terminal, you can re-open it. Your text is never lost: a draft
that is not saved stays beside the file and the next edit resumes it.

With a server NAME and --include-tools and/or --exclude-tools, edit sets that server's tool
filters instead, without an editor: globs (* ? [a-z]) on the server's own tool names, e.g.
--exclude-tools 'delete_*,drop_*'. Only matching tools are shown (include) or matching tools
are hidden (exclude), from every client. An empty value ('') removes the list. A running
serve applies it without restarting the server.`,
		Args: func(cmd *cobra.Command, args []string) error {
			filters := cmd.Flags().Changed("include-tools") || cmd.Flags().Changed("exclude-tools")
			switch {
			case len(args) > 1:
				return usagef("mcp edit takes at most one server name, got %d (see --help)", len(args))
			case len(args) == 1 && !filters:
				return usagef("mcp edit %s: give --include-tools and/or --exclude-tools to change the server's tool filters, or run plughost mcp edit without a name to edit the whole file", args[0])
			case len(args) == 0 && filters:
				return usagef("--include-tools and --exclude-tools need the server's name: plughost mcp edit NAME --exclude-tools GLOB")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return g.edit()
			}
			var e manage.ToolFilterEdit
			if cmd.Flags().Changed("include-tools") {
				e.Include = &include
			}
			if cmd.Flags().Changed("exclude-tools") {
				e.Exclude = &exclude
			}
			return g.editToolFilter(args[0], e)
		},
	}
	cmd.Flags().StringSliceVar(&include, "include-tools", nil, "with NAME: show only the server's tools matching these globs ('' removes the list)")
	cmd.Flags().StringSliceVar(&exclude, "exclude-tools", nil, "with NAME: hide the server's tools matching these globs ('' removes the list)")
	return cmd
}

func (g *globals) editToolFilter(name string, e manage.ToolFilterEdit) error {
	res, err := g.manager().SetToolFilter(name, e, manage.WriteOptions{})
	if err != nil {
		return err
	}
	printWarnings(g.stderr, res.Warnings)
	fmt.Fprintf(g.stdout, "Set the tool filters of server %q in %s (previous version kept in %s).\n", name, res.File, res.Backup)
	return nil
}

// draftPath is where an edit's text is kept until it is valid:
// config.json → config.draft.json.
func draftPath(file string) string {
	ext := filepath.Ext(file)
	return strings.TrimSuffix(file, ext) + ".draft" + ext
}

func (g *globals) edit() error {
	tx, err := g.manager().Begin()
	if err != nil {
		return err
	}
	draft := draftPath(tx.File())
	if err := g.prepareDraft(draft, tx.Data(), tx.Exists()); err != nil {
		return err
	}
	for {
		if err := runEditor(draft); err != nil {
			return fmt.Errorf("%w (your text is kept in %s)", err, draft)
		}
		text, err := os.ReadFile(draft)
		if err != nil {
			return fmt.Errorf("read the draft back: %w", err)
		}
		if tx.Exists() && bytes.Equal(text, tx.Data()) {
			os.Remove(draft)
			fmt.Fprintf(g.stdout, "No changes; %s left as it was.\n", tx.File())
			return nil
		}
		tx.SetText(text)
		warnings, err := tx.Check(true)
		var inv *manage.InvalidError
		if errors.As(err, &inv) {
			err = fmt.Errorf("%w\nYour text is kept in %s; run plughost mcp edit again to fix it (it resumes there), or delete that file to start over", inv, draft)
			if interactive() {
				fmt.Fprintln(g.stderr, err.Error())
				if confirm(g.stderr, "Re-open the editor?", true) {
					continue
				}
			}
			return err
		}
		if err != nil {
			return err
		}
		return g.saveEdit(tx, draft, warnings)
	}
}

// prepareDraft writes the current file (or a skeleton) to the draft, unless
// a draft from an earlier edit is waiting, which is resumed.
func (g *globals) prepareDraft(draft string, current []byte, exists bool) error {
	switch _, err := os.Stat(draft); {
	case err == nil:
		fmt.Fprintf(g.stderr, "Resuming your unsaved edit from %s (delete it to start from the config file).\n", draft)
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("check for an earlier draft: %w", err)
	}
	if !exists || len(bytes.TrimSpace(current)) == 0 {
		current = []byte(skeleton)
	}
	if err := os.MkdirAll(filepath.Dir(draft), 0o700); err != nil {
		return fmt.Errorf("create config directory: %w", err)
	}
	if err := os.WriteFile(draft, current, 0o600); err != nil {
		return fmt.Errorf("write the draft: %w", err)
	}
	return nil
}

func (g *globals) saveEdit(tx *manage.Tx, draft string, warnings []string) error {
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w\nYour text is kept in %s; run plughost mcp edit again to merge it into the new version", err, draft)
	}
	os.Remove(draft)
	printWarnings(g.stderr, warnings)
	fmt.Fprintf(g.stdout, "Saved %s", tx.File())
	if _, err := os.Stat(tx.BackupPath()); err == nil {
		fmt.Fprintf(g.stdout, " (previous version kept in %s)", tx.BackupPath())
	}
	fmt.Fprintln(g.stdout, ".")
	return nil
}

// editorCommand returns $VISUAL, else $EDITOR, else vi.
func editorCommand() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e
		}
	}
	return "vi"
}

// runEditor runs the editor on path through the shell, as git does, so that
// EDITOR may carry arguments and quoting ("code --wait").
func runEditor(path string) error {
	editor := editorCommand()
	cmd := exec.Command("/bin/sh", "-c", editor+` "$@"`, editor, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("editor %q failed: %w; set $VISUAL or $EDITOR to an editor that waits until you close the file", editor, err)
	}
	return nil
}
