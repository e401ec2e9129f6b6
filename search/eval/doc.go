// Package eval measures the search index on a tool-search benchmark: it
// loads the benchmark's JSON files (tools, servers, single-tool queries,
// multi-step queries), builds an index over the tools, and computes R@1, R@5,
// R@10 and MRR@10 (single-tool) and StepR@5 and All@10 (multi-step), overall
// and per level. A plain Okapi BM25 baseline (Baseline) gives the reference
// figures to compare with. Queries split into two halves by a fixed hash of
// their ID (Half): the semantic settings (Ablate, CrossValidate) are judged
// on the half they were not chosen on. Tally and StepTally score rankings
// computed elsewhere (search/research/ltr re-ranks candidates offline).
package eval
