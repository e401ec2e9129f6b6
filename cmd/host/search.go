package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/plughost/plughost/lib/termsafe"
	"github.com/plughost/plughost/search"
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
				fmt.Fprintf(tw, "%.2f\t%s\t%s\n", r.Score, termsafe.Text(r.Tool.Name), firstLine(r.Tool.Description))
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
	var toolsFile, serversFile, vectorsFile, semanticSpec, split string
	var embedURL, embedModel, embedKeyEnv string
	var queryFiles []string
	var k int
	var asJSON, baseline, ablate, cv, ltr, misses bool
	cmd := &cobra.Command{
		Use:   "eval --tools FILE --queries FILE [--queries FILE]",
		Short: "Measure search quality on a benchmark (R@1, R@5, R@10, MRR@10; StepR@5, All@10 for multi-step files)",
		Long: `eval indexes the tools of a benchmark file ([{"server","name","description","input_schema"}])
and runs its queries: single-tool files ([{"id","level","query","relevant"}]) report R@1, R@5,
R@10 and MRR@10 overall and per level; multi-step files ([{"id","level","query","steps"}])
report StepR@5 and All@10. --baseline ranks with plain Okapi BM25 over server + name +
description instead, for comparison.

The semantic signal (word vectors, see docs/benchmarks.md) is measured with --semantic
(default, off, or key=value pairs: expansion, neighbors, min, all, dense, depth). Queries are
split into two halves A and B by a fixed hash of their ID: --split A evaluates one half,
--ablate prints every piece of the semantic signal on both halves side by side with plain
BM25 and the lexical ranking (give --queries twice: single-tool and multi-step), and --cv
chooses a setting on each half from a grid and reports it on the other half.

--embeddings URL measures an OpenAI-compatible embeddings endpoint (Ollama, llama.cpp,
vLLM, OpenAI; the setting tools.mcp.discovery.semantic.endpoint) instead of the word
vectors: alone it evaluates the host's re-rank (weight 0.5 over the BM25 top 50), with
--semantic dense=W,depth=N another one, and --ablate / --cv its weights and depths.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) (runErr error) {
			if ltr {
				return usagef("--ltr: the learned re-rank is research, not part of plughost; from a checkout, run `go run ./search/research/ltr` with the same --tools and --queries (docs/benchmarks.md#learned-re-rank)")
			}
			if toolsFile == "" || len(queryFiles) == 0 {
				return usagef("search eval needs --tools FILE and --queries FILE")
			}
			if k != 1 && k != 5 && k != 10 {
				return usagef("--k %d: the benchmark reports recall at 1, 5 and 10; use one of those", k)
			}
			if split != "" && split != "A" && split != "B" {
				return usagef("--split %q: use A or B (the two halves of the queries)", split)
			}
			sem, err := eval.ParseSemantic(semanticSpec)
			if err != nil {
				return usagef("%v", err)
			}
			d, err := eval.LoadData(toolsFile, serversFile, queryFiles)
			if err != nil {
				return err
			}
			if embedURL != "" {
				var key string
				if embedKeyEnv != "" {
					if key = os.Getenv(embedKeyEnv); key == "" {
						return usagef("--embeddings-key-env %s: the variable is empty or unset", embedKeyEnv)
					}
				}
				endpoint := &search.OpenAIEmbedder{BaseURL: embedURL, Model: embedModel, APIKey: key}
				probe, cancel := context.WithTimeout(cmd.Context(), time.Minute)
				_, err := endpoint.Embed(probe, []string{"plughost search eval: is the endpoint up?"})
				cancel()
				if err != nil {
					return fmt.Errorf("--embeddings: %w (start the embeddings server, or check the URL and --embeddings-model)", err)
				}
				counted := &countingEmbedder{e: endpoint}
				d.Embedder = counted
				defer func() {
					if n, first := counted.failures(); n > 0 && runErr == nil {
						runErr = fmt.Errorf("the embeddings endpoint failed %d time(s) during the evaluation (first: %v): "+
							"the figures above ranked those tools or queries without its vectors", n, first)
					}
				}()
				if sem == nil {
					sem = &search.Semantic{Dense: 0.5, Depth: 50}
				}
			}
			var wv *search.WordVectors
			if needsWordVectors := (sem != nil && (d.Embedder == nil || sem.Expansion > 0)) || ((ablate || cv) && d.Embedder == nil); needsWordVectors {
				if wv, err = loadEvalVectors(vectorsFile); err != nil {
					return err
				}
			}
			switch {
			case ablate:
				variants := eval.AblationVariants()
				if d.Embedder != nil {
					variants = eval.EndpointVariants()
				}
				rows, err := d.Ablate(variants, 1, wv)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(g.stdout, rows)
				}
				printAblation(g.stdout, rows)
				return nil
			case cv:
				grid := eval.Grid()
				if d.Embedder != nil {
					grid = eval.EndpointGrid()
				}
				folds, err := d.CrossValidate(grid, wv)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(g.stdout, folds)
				}
				printFolds(g.stdout, folds)
				return nil
			}
			v := eval.Variant{Name: "plughost", Baseline: baseline, Semantic: sem}
			s, done, err := d.Searcher(v, wv)
			if err != nil {
				return err
			}
			defer done()
			if misses {
				return printMisses(g.stdout, s, eval.SplitSingle(d.Single, split), asJSON)
			}
			if len(d.Multi) > 0 {
				res, err := eval.EvalMulti(s, eval.SplitMulti(d.Multi, split))
				if err != nil {
					return err
				}
				if asJSON && len(d.Single) == 0 {
					return writeJSON(g.stdout, res)
				}
				if !asJSON {
					printMulti(g.stdout, res)
				}
			}
			if len(d.Single) > 0 {
				res, err := eval.EvalSingle(s, eval.SplitSingle(d.Single, split))
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(g.stdout, res)
				}
				printSingle(g.stdout, res)
				fmt.Fprintf(g.stdout, "\nWith max_search_results = %d, the right tool is among the results for %.1f%% of queries.\n",
					k, 100*map[int]float64{1: res.R1, 5: res.R5, 10: res.R10}[k])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&toolsFile, "tools", "", "benchmark tools file (required)")
	cmd.Flags().StringSliceVar(&queryFiles, "queries", nil, "benchmark queries file, single-tool or multi-step (required; repeat for both)")
	cmd.Flags().StringVar(&serversFile, "servers", "", "optional servers file: server descriptions are indexed too")
	cmd.Flags().IntVar(&k, "k", 5, "the max_search_results to summarize single-tool results at: 1, 5 or 10")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&baseline, "baseline", false, "rank with plain Okapi BM25 (the benchmark's reference) instead")
	cmd.Flags().StringVar(&semanticSpec, "semantic", "off", "semantic signal: off, default, or key=value,... (expansion, neighbors, min, all, dense, depth)")
	cmd.Flags().StringVar(&vectorsFile, "vectors", "", "word-vector file (default: "+search.WordVectorsFile+" next to plughost, or $PLUGHOST_WORDVEC)")
	cmd.Flags().StringVar(&split, "split", "", "evaluate only half A or B of the queries (a fixed hash of their ID)")
	cmd.Flags().BoolVar(&ablate, "ablate", false, "measure each piece of the semantic signal on both halves")
	cmd.Flags().BoolVar(&ltr, "ltr", false, "moved out of plughost: go run ./search/research/ltr")
	cmd.Flags().MarkHidden("ltr")
	cmd.Flags().BoolVar(&cv, "cv", false, "two-fold cross-validation: choose a setting on each half, report it on the other")
	cmd.Flags().BoolVar(&misses, "misses", false, "sort the single-tool queries whose first result is wrong by what came first: a sibling tool of the right server, a namesake on another server, or another tool")
	cmd.Flags().StringVar(&embedURL, "embeddings", "", "base URL of an OpenAI-compatible embeddings API to measure, e.g. http://127.0.0.1:11434/v1")
	cmd.Flags().StringVar(&embedModel, "embeddings-model", "", "the embedding model's name, sent with every --embeddings request")
	cmd.Flags().StringVar(&embedKeyEnv, "embeddings-key-env", "", "environment variable holding the --embeddings API key (sent as a bearer token)")
	return cmd
}

// loadEvalVectors loads the word vectors from path, or from where plughost
// finds them by default.
func loadEvalVectors(path string) (*search.WordVectors, error) {
	if path != "" {
		return search.LoadWordVectors(path)
	}
	exe, _ := os.Executable()
	paths := search.WordVectorsPaths(exe, os.Environ())
	wv, _, err := search.FindWordVectors(paths)
	if err != nil {
		return nil, err
	}
	if wv == nil {
		return nil, fmt.Errorf("no word-vector file at %s: run `make wordvec` or pass --vectors FILE", strings.Join(paths, ", "))
	}
	return wv, nil
}

// countingEmbedder passes calls to an embeddings endpoint and counts the
// failed ones: the index ranks lexically where a call fails, which an
// evaluation must not pass off as the endpoint's figures.
type countingEmbedder struct {
	e     search.Embedder
	mu    sync.Mutex
	n     int
	first error
}

// Embed implements search.Embedder.
func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := c.e.Embed(ctx, texts)
	if err != nil {
		c.mu.Lock()
		if c.n == 0 {
			c.first = err
		}
		c.n++
		c.mu.Unlock()
	}
	return v, err
}

// failures returns how many calls failed, and the first error.
func (c *countingEmbedder) failures() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.first
}

// printMisses prints, per level, what the ranking put first when it was
// not an acceptable tool.
func printMisses(w io.Writer, s eval.Searcher, qs []eval.Query, asJSON bool) error {
	byLevel := map[int][]eval.Query{}
	var levels []int
	for _, q := range qs {
		if byLevel[q.Level] == nil {
			levels = append(levels, q.Level)
		}
		byLevel[q.Level] = append(byLevel[q.Level], q)
	}
	sort.Ints(levels)
	out := map[string]eval.Misses{}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "level	n	not first	sibling first	namesake first	other first	not in top 5	R@1 if namesakes counted	")
	for _, lv := range levels {
		m, err := eval.CountMisses(s, byLevel[lv])
		if err != nil {
			return err
		}
		out[strconv.Itoa(lv)] = m
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t\n", lv, m.N, m.NotFirst, m.Sibling, m.Namesake, m.Other, m.NotInTop5, m.R1IfNamesakesCounted())
	}
	if asJSON {
		return writeJSON(w, out)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nsibling: another tool of a server with an acceptable tool; namesake: a tool of another server named like an acceptable one (case and punctuation aside), which the labels do not accept.")
	return nil
}

func printAblation(w io.Writer, rows []eval.Row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\thalf\tL1 R@1\tL1 R@5\tL2 R@1\tL2 R@5\tmulti StepR@5\tmulti All@10\tobjective\t")
	for _, r := range rows {
		for _, h := range []struct {
			name string
			f    eval.Figures
		}{{"A", r.A}, {"B", r.B}, {"all", r.All}} {
			f := h.f
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t\n", r.Variant.Name, h.name,
				f.L1.R1, f.L1.R5, f.L2.R1, f.L2.R5, f.Multi.StepR5, f.Multi.All10, f.Objective())
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nobjective = mean of level-2 R@1, level-2 R@5 and multi-step All@10; halves A/B by a fixed hash of the query ID.")
	for _, r := range rows[2:] {
		verdict := "not better than the lexical ranking on both halves"
		if r.BothImproved {
			verdict = "better on both halves"
		}
		fmt.Fprintf(w, "%s: %s\n", r.Variant.Name, verdict)
	}
}

func printFolds(w io.Writer, folds [2]eval.Fold) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "chosen on\tsetting\tmeasured on\tobjective\tlexical\tL2 R@1\tL2 R@5\tAll@10\t")
	for _, f := range folds {
		name := "off (lexical)"
		if f.Chosen != nil {
			name = eval.Describe(*f.Chosen)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\t\n", f.Train, name, f.Test,
			f.Held.Objective(), f.Lexical.Objective(), f.Held.L2.R1, f.Held.L2.R5, f.Held.Multi.All10)
	}
	tw.Flush()
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
