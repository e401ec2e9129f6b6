package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/search/eval"
)

func newSearchCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Search the configured servers' tools, or measure search quality on a benchmark",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			return usagef("search needs a subcommand: query, regex or eval (see plughost search --help)")
		},
	}
	cmd.AddCommand(newSearchRunCommand(g, false), newSearchRunCommand(g, true), newSearchEvalCommand(g), newContextCostCommand(g))
	return cmd
}

func newSearchRunCommand(g *globals, regex bool) *cobra.Command {
	var k int
	var asJSON bool
	var wait time.Duration
	use, short := "query <text>", "Rank the tools of the configured servers for a query (BM25), as tool_search_tool_bm25 does"
	if regex {
		use, short = "regex <pattern>", "Find tools matching an RE2 pattern (case-insensitive), as tool_search_tool_regex does"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := g.startHost(cmd.Context(), wait)
			if err != nil {
				return err
			}
			defer h.Close()
			res, err := h.Search(args[0], k, regex)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, res)
			}
			if len(res) == 0 {
				fmt.Fprintln(g.stdout, "No tool matches. Try other words, or `plughost tools` for the full list.")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCORE\tTOOL\tDESCRIPTION")
			for _, r := range res {
				fmt.Fprintf(tw, "%.2f\t%s\t%s\n", r.Score, r.Tool.Name, firstLine(r.Tool.Description))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&k, "k", 5, "how many tools to return")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addWaitFlag(cmd, &wait)
	return cmd
}

func newSearchEvalCommand(g *globals) *cobra.Command {
	var toolsFile, queriesFile, serversFile string
	var k int
	var asJSON, baseline bool
	cmd := &cobra.Command{
		Use:   "eval --tools FILE --queries FILE",
		Short: "Measure search quality on a benchmark (R@1, R@5, R@10, MRR@10; StepR@5, All@10 for multi-step files)",
		Long: `eval indexes the tools of a benchmark file ([{"server","name","description","input_schema"}])
and runs its queries: single-tool files ([{"id","level","query","relevant"}]) report R@1, R@5,
R@10 and MRR@10 overall and per level; multi-step files ([{"id","level","query","steps"}])
report StepR@5 and All@10. --baseline ranks with plain Okapi BM25 over server + name +
description instead, for comparison.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if toolsFile == "" || queriesFile == "" {
				return usagef("search eval needs --tools FILE and --queries FILE")
			}
			if k != 1 && k != 5 && k != 10 {
				return usagef("--k %d: the benchmark reports recall at 1, 5 and 10; use one of those", k)
			}
			tools, err := eval.LoadJSON[[]eval.Tool](toolsFile)
			if err != nil {
				return err
			}
			var serverDesc map[string]string
			if serversFile != "" {
				servers, err := eval.LoadJSON[[]eval.Server](serversFile)
				if err != nil {
					return err
				}
				serverDesc = eval.ServerDescriptions(servers)
			}
			var s eval.Searcher
			if baseline {
				s = eval.NewBaseline(tools)
			} else {
				ix, err := eval.BuildIndex(tools, serverDesc)
				if err != nil {
					return err
				}
				defer ix.Close()
				s = ix
			}
			multi, err := eval.IsMultiStep(queriesFile)
			if err != nil {
				return err
			}
			if multi {
				qs, err := eval.LoadJSON[[]eval.MultiQuery](queriesFile)
				if err != nil {
					return err
				}
				res, err := eval.EvalMulti(s, qs)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(g.stdout, res)
				}
				printMulti(g.stdout, res)
				return nil
			}
			qs, err := eval.LoadJSON[[]eval.Query](queriesFile)
			if err != nil {
				return err
			}
			res, err := eval.EvalSingle(s, qs)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, res)
			}
			printSingle(g.stdout, res)
			fmt.Fprintf(g.stdout, "\nWith max_search_results = %d, the right tool is among the results for %.1f%% of queries.\n",
				k, 100*map[int]float64{1: res.R1, 5: res.R5, 10: res.R10}[k])
			return nil
		},
	}
	cmd.Flags().StringVar(&toolsFile, "tools", "", "benchmark tools file (required)")
	cmd.Flags().StringVar(&queriesFile, "queries", "", "benchmark queries file, single-tool or multi-step (required)")
	cmd.Flags().StringVar(&serversFile, "servers", "", "optional servers file: server descriptions are indexed too")
	cmd.Flags().IntVar(&k, "k", 5, "the max_search_results to summarize single-tool results at: 1, 5 or 10")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&baseline, "baseline", false, "rank with plain Okapi BM25 (the benchmark's reference) instead")
	return cmd
}

func printSingle(w io.Writer, r eval.SingleResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "subset\tn\tR@1\tR@5\tR@10\tMRR@10\t")
	row := func(name string, s eval.Scores) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", name, s.N, s.R1, s.R5, s.R10, s.MRR10)
	}
	row("all", r.Scores)
	for _, lv := range sortedKeys(r.Levels) {
		row("level "+lv, r.Levels[lv])
	}
	tw.Flush()
}

func printMulti(w io.Writer, r eval.MultiResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "subset\tn\tStepR@5\tAll@10\t")
	row := func(name string, s eval.MultiScores) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t\n", name, s.N, s.StepR5, s.All10)
	}
	row("all", r.MultiScores)
	for _, lv := range sortedKeys(r.Levels) {
		row("level "+lv, r.Levels[lv])
	}
	tw.Flush()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
