// Package eval measures the search index on a tool-search benchmark: it
// loads the benchmark's JSON files (tools, servers, single-tool queries,
// multi-step queries), builds an index over the tools, and computes R@1, R@5,
// R@10 and MRR@10 (single-tool) and StepR@5 and All@10 (multi-step), overall
// and per level. A plain Okapi BM25 baseline (Baseline) gives the reference
// figures to compare with. Queries split into two halves by a fixed hash of
// their ID (Half): the semantic settings (Ablate, CrossValidate) and the
// learned re-rank (LearnToRank: trainers cross-fitted on the halves,
// chosen by an inner split, ablated feature by feature) are judged on the
// half they were not fit on.
package eval
