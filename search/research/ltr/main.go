// Command ltr measures a learned re-rank of plughost's tool search on a
// benchmark: research, not part of plughost (no plughost binary links it).
//
// The search index ranks tools with BM25 (package search). A learned
// re-rank would re-order the BM25 top k by a linear score of features of
// each (query, tool) pair ([Features]: the normalised BM25 score and
// rank, a dense cosine, how much of the tool's name and text the query
// covers, server-name match, how much of the candidates' score the
// tool's server holds). This command computes those features from the
// index's lexical stage (search.Index.Candidates), learns weights with
// several trainers on one half of the queries and measures them on the
// other (eval.Half), chooses among the trainers by a two-fold
// cross-validation with an inner split, and leaves each feature out in
// turn. On the development benchmark no re-rank so chosen was better on
// both halves, so plughost ships none (docs/benchmarks.md, "Learned
// re-rank").
//
// Usage, from the repository root:
//
//	go run ./search/research/ltr --tools F --queries F [--queries F] [--servers F]
//	    [--vectors F | --embeddings URL [--embeddings-model M] [--embeddings-key-env VAR]] [--json]
//
// The dense feature comes from the word vectors (--vectors, else
// $PLUGHOST_WORDVEC; without them it is 0) or, with --embeddings, from an
// OpenAI-compatible embeddings endpoint's vectors of the query and of the
// tool definition (search.EmbedText).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/plughost/plughost/search"
	"github.com/plughost/plughost/search/eval"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Environ())
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.As(err, new(usageError)):
		fmt.Fprintln(os.Stderr, "ltr:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "ltr:", err)
		os.Exit(1)
	}
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// options are the command's flags.
type options struct {
	tools, servers, vectors   string
	queries                   []string
	embedURL, embedModel, key string
	asJSON                    bool
}

// parse reads the command line.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ltr", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.tools, "tools", "", "benchmark tools file (required)")
	fs.Func("queries", "benchmark queries file, single-tool or multi-step (required; repeat for both)", func(s string) error {
		o.queries = append(o.queries, s)
		return nil
	})
	fs.StringVar(&o.servers, "servers", "", "optional servers file: server descriptions are indexed too")
	fs.StringVar(&o.vectors, "vectors", "", "word-vector file for the dense feature (default: $PLUGHOST_WORDVEC)")
	fs.StringVar(&o.embedURL, "embeddings", "", "base URL of an OpenAI-compatible embeddings API whose vectors give the dense feature")
	fs.StringVar(&o.embedModel, "embeddings-model", "", "the embedding model's name, sent with every --embeddings request")
	fs.StringVar(&o.key, "embeddings-key-env", "", "environment variable holding the --embeddings API key")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as one JSON object")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return o, usageError{fmt.Sprintf("unexpected argument %q: every input is a flag", fs.Arg(0))}
	case o.tools == "" || len(o.queries) == 0:
		return o, usageError{"needs --tools FILE and --queries FILE"}
	case o.embedURL != "" && o.vectors != "":
		return o, usageError{"--vectors and --embeddings both give the dense feature: choose one"}
	}
	return o, nil
}

// run is the command: it parses args, measures and prints the report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, environ []string) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	d, err := eval.LoadData(o.tools, o.servers, o.queries)
	if err != nil {
		return err
	}
	v, err := denseVectors(o, stderr, environ)
	if err != nil {
		return err
	}
	rep, err := LearnToRank(ctx, d, v)
	if err != nil {
		return err
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printReport(stdout, rep)
	return nil
}

// denseVectors returns what gives the dense feature: the endpoint, the
// word vectors, or nothing (with a note on stderr).
func denseVectors(o options, stderr io.Writer, environ []string) (vectors, error) {
	if o.embedURL != "" {
		var key string
		if o.key != "" {
			if key = lookupEnv(environ, o.key); key == "" {
				return vectors{}, usageError{fmt.Sprintf("--embeddings-key-env %s: the variable is empty or unset", o.key)}
			}
		}
		return vectors{e: &search.OpenAIEmbedder{BaseURL: o.embedURL, Model: o.embedModel, APIKey: key}}, nil
	}
	paths := search.WordVectorsPaths("", environ)
	if o.vectors != "" {
		paths = []string{o.vectors}
	}
	wv, _, err := search.FindWordVectors(paths)
	if err == nil && wv == nil {
		err = fmt.Errorf("no word-vector file at %q (make wordvec, then --vectors bin/plughost-wordvec.bin)", paths)
	}
	if err != nil {
		fmt.Fprintf(stderr, "no word vectors (%v): the dense feature is 0\n", err)
		return vectors{}, nil
	}
	return vectors{wv: wv}, nil
}

// lookupEnv returns the value of name in environ ("" when unset).
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// printReport prints the report as tables.
func printReport(w io.Writer, rep Report) {
	fig := func(f eval.Figures) string {
		return fmt.Sprintf("%.3f/%.3f/%.3f/%.3f", f.L2.R1, f.L2.R5, f.Multi.All10, f.Objective())
	}
	fmt.Fprintf(w, "cells: level-2 R@1 / level-2 R@5 / multi All@10 / objective, on the half the weights were NOT learned on\n")
	fmt.Fprintf(w, "lexical (BM25 order): A %s, B %s\n", fig(rep.Lexical[0]), fig(rep.Lexical[1]))
	for _, c := range rep.Ceilings {
		fmt.Fprintf(w, "ceiling of a re-rank of the top %d (an acceptable tool among them): level 2 A %.3f, B %.3f; every step, multi-step A %.3f, B %.3f\n",
			c.Depth, c.Level2[0], c.Level2[1], c.Multi[0], c.Multi[1])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "trainer\tlearned on A, on B\tlearned on B, on A\tboth better\t")
	row := func(tw io.Writer, name string, f [2]FoldResult) {
		both := f[0].Held.Objective() > f[0].Lexical.Objective() && f[1].Held.Objective() > f[1].Lexical.Objective()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t\n", name, fig(f[0].Held), fig(f[1].Held), both)
	}
	for _, f := range rep.Trainers {
		row(tw, f[0].Trainer.String(), f)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, f := range rep.Chosen {
		fmt.Fprintf(w, "chosen on %s: %s; on %s %s (lexical %s)\n", f.Train, f.Trainer, f.Test, fig(f.Held), fig(f.Lexical))
	}
	for _, rows := range rep.Ablation {
		fmt.Fprintf(w, "\nablation of %s\n", rows[0][0].Trainer)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "features\tlearned on A, on B\tlearned on B, on A\tboth better\t")
		for i, f := range rows {
			name := "all"
			if i > 0 {
				name = "without " + FeatureName(i-1)
			}
			row(tw, name, f)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nweights (raw features) learned on each half, chosen trainers:")
	for _, f := range rep.Chosen {
		fmt.Fprintf(w, "  on %s: depth %d", f.Train, f.Rerank.Depth)
		for i, x := range f.Rerank.Weights {
			fmt.Fprintf(w, " %s=%.3g", FeatureName(i), x)
		}
		fmt.Fprintln(w)
	}
}
