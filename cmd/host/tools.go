package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/termsafe"
)

func newToolsCommand(g *globals) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools an agent sees, under their final mcp_<server>_<tool> names",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := g.live(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer src.Close()
			tools, err := src.Tools(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, tools)
			}
			if len(tools) == 0 {
				fmt.Fprintln(g.stdout, "No tools: no server is connected (see plughost mcp list).")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tSERVER\tDESCRIPTION")
			for _, t := range tools {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", termsafe.Text(t.Name), termsafe.Text(t.Server), firstLine(t.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (names, descriptions, input schemas)")
	addWaitFlag(cmd, &wait)
	return cmd
}

func newCallCommand(g *globals) *cobra.Command {
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "call <tool-name> [json-args]",
		Short: "Call one tool by its agent-facing name and print the result",
		Long: `call calls one tool by the name an agent sees (plughost tools lists them), through a
running serve of this config when there is one, and prints the result.

When the tool's OAuth server wants a new login — it asks for more scope than the login got
(a step-up, HTTP 403 insufficient_scope), or the login was lost — call on a terminal says
so and offers to log in again, with the wider scope, and to call once more. Without a
terminal it fails (exit 1) with the command to run, "plughost mcp login <server>", and the
scope that login asks for.`,
		Example: `  plughost call mcp_demo_echo '{"text": "hello"}'
  plughost call mcp_demo_calculate '{"expression": "2*(3+4)"}'`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := json.RawMessage("{}")
			if len(args) == 2 {
				raw = json.RawMessage(args[1])
				if !json.Valid(raw) {
					return usagef("json-args is not valid JSON: %s (quote it in the shell, e.g. '{\"text\": \"hi\"}')", args[1])
				}
			}
			src, err := g.live(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer src.Close()
			r, err := g.callWithLogin(cmd.Context(), src, args[0], raw)
			if err != nil {
				return err
			}
			res := r.Result
			if asJSON {
				b, err := r.JSON() // as the server sent it, but for what shaping rewrote
				if err != nil {
					return err
				}
				if err := writeJSON(g.stdout, b); err != nil {
					return err
				}
			} else {
				printResult(g, res)
			}
			if res.IsError {
				return fmt.Errorf("tool %s reported an error", args[0])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON, every member the server sent included")
	addWaitFlag(cmd, &wait)
	return cmd
}

// printResult prints text content and summarizes everything else, all of
// it safe to print (termsafe.Text): it is the server's.
func printResult(g *globals, res host.ToolResult) {
	for _, c := range res.Content {
		switch c.Type {
		case host.ContentText:
			fmt.Fprintln(g.stdout, termsafe.Text(c.Text))
		case host.ContentImage:
			fmt.Fprintf(g.stdout, "[image %s, %d base64 chars]\n", termsafe.Text(c.MIMEType), len(c.Data))
		case host.ContentAudio:
			fmt.Fprintf(g.stdout, "[audio %s, %d base64 chars]\n", termsafe.Text(c.MIMEType), len(c.Data))
		case host.ContentResourceLink:
			fmt.Fprintf(g.stdout, "[resource link %s]\n", termsafe.Text(c.URI))
		case host.ContentResource:
			fmt.Fprintln(g.stdout, "[embedded resource]")
		default:
			fmt.Fprintln(g.stdout, "[content of another type]")
		}
	}
	if res.StructuredContent != nil && len(res.Content) == 0 {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(g.stdout, string(termsafe.JSON(b)))
	}
}
