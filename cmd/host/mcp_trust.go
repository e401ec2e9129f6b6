package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/quarantine"
	"github.com/plughost/plughost/host/toolscan"
	"github.com/plughost/plughost/lib/linediff"
	"github.com/plughost/plughost/lib/termsafe"
)

func newMCPTrustCommand(g *globals) *cobra.Command {
	var tools []string
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "trust <server> [--tool NAME]... [--all]",
		Short: "Show a server's quarantined tools with what changed, and approve them",
		Long: `trust shows the tools of a server that wait for approval: tools whose definition
changed since it was approved, tools new since, every tool of a server with trust "approve"
that nobody approved yet, and tools the definition scan flagged (trust_scan "quarantine").
Each is shown as a diff of its approved and its current definition (description and
schemas), with the scan's findings. Invisible characters are written out as <U+200B>.

Without --tool or --all nothing is approved. --tool NAME (the server's own tool name;
repeat it) approves those tools, --all every tool shown: their current definitions are
pinned and they are usable again, by every client and on every replica. The approval is
recorded in the pins (by "cli") and the audit log.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all && len(tools) > 0 {
				return usagef("--all approves every waiting tool; leave out --tool, or --all to approve only the named tools")
			}
			src, err := g.live(cmd.Context(), defaultWait)
			if err != nil {
				return err
			}
			defer src.Close()
			d, err := src.Server(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !all && len(tools) == 0 {
				if asJSON {
					return writeJSON(g.stdout, map[string]any{"server": d.Name, "quarantined": d.Quarantined})
				}
				printQuarantined(g.stdout, d)
				if len(d.Quarantined) > 0 {
					fmt.Fprintf(g.stdout, "\nNothing approved. Approve with: plughost mcp trust %s --tool NAME (or --all)\n", d.Name)
				}
				return nil
			}
			shown := d
			if len(tools) > 0 {
				shown.Quarantined = nil
				for _, q := range d.Quarantined {
					for _, t := range tools {
						if q.Tool == t {
							shown.Quarantined = append(shown.Quarantined, q)
						}
					}
				}
			}
			res, err := src.Approve(cmd.Context(), d.Name, api.ApproveRequest{Tools: tools, All: all, Via: "cli"})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, res)
			}
			printQuarantined(g.stdout, shown)
			fmt.Fprintf(g.stdout, "\nApproved %d tool(s) of server %s: %s\n", len(res.Approved), termsafe.Text(d.Name), termsafe.Text(strings.Join(res.Approved, ", ")))
			if n := len(res.Quarantined); n > 0 {
				fmt.Fprintf(g.stdout, "%d tool(s) still wait for approval.\n", n)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&tools, "tool", nil, "approve this tool (the server's own name); repeat for more")
	cmd.Flags().BoolVar(&all, "all", false, "approve every tool of the server that waits for approval")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printQuarantined prints a server's quarantined tools, each as a diff of
// its approved and current definition, with the scan's findings. All of
// it came from the server: it is printed through termsafe, with
// invisible characters written out (visible).
func printQuarantined(w io.Writer, d host.ServerDetail) {
	if len(d.Quarantined) == 0 {
		fmt.Fprintf(w, "Server %s has no tools waiting for approval.\n", termsafe.Text(d.Name))
		return
	}
	fmt.Fprintf(w, "Server %s: %d tool(s) wait for approval.\n", termsafe.Text(d.Name), len(d.Quarantined))
	for _, q := range d.Quarantined {
		why := make([]string, len(q.Reasons))
		for i, r := range q.Reasons {
			why[i] = quarantine.ReasonText(r)
		}
		fmt.Fprintf(w, "\n%s (tool %s): %s\n", visible(q.Name), visible(q.Tool), strings.Join(why, "; "))
		if q.Pinned != nil {
			fmt.Fprintf(w, "  approved %s by %s\n", q.Pinned.At.Local().Format("2006-01-02 15:04"), visible(q.Pinned.By))
		}
		var old json.RawMessage
		if q.Pinned != nil {
			old = q.Pinned.Definition
		}
		for _, f := range definitionDiff(old, q.Current) {
			fmt.Fprintf(w, "  %s:\n", f.field)
			for _, l := range f.lines {
				fmt.Fprintf(w, "    %c %s\n", l.Op, visible(l.Text))
			}
		}
		for _, f := range q.Findings {
			fmt.Fprintf(w, "  finding: %s in %s: %s\n", f.Rule, visible(f.Field), visible(f.Excerpt))
		}
	}
}

// fieldDiff is the diff of one field of a definition.
type fieldDiff struct {
	field string
	lines []linediff.Line
}

// definitionFields are the fields of a definition trust covers, in the
// order they are shown.
var definitionFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// definitionDiff compares two definitions (trust.Canonical JSON; old nil
// for a tool never approved) field by field: text fields line by line,
// the others as indented JSON. Fields that did not change are left out.
func definitionDiff(old, cur json.RawMessage) []fieldDiff {
	var a, b map[string]json.RawMessage
	_ = json.Unmarshal(old, &a) // nil or malformed: every field is new
	_ = json.Unmarshal(cur, &b)
	var out []fieldDiff
	for _, f := range definitionFields {
		lines := linediff.Lines(fieldText(a[f]), fieldText(b[f]))
		if linediff.Changed(lines) {
			out = append(out, fieldDiff{f, lines})
		}
	}
	return out
}

// fieldText is a field as lines: a string's text, else indented JSON.
func fieldText(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, v, "", "  ") != nil {
		return string(v)
	}
	return b.String()
}

// visible makes a server's text safe for a terminal and writes out the
// characters a reader would not see — zero-width, bidi, tag and control
// characters (toolscan.Visible) — as <U+XXXX>, so hidden text shows.
func visible(s string) string { return termsafe.Text(toolscan.Visible(s)) }
