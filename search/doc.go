// Package search is the tool index behind discovery: a BM25 ranking over an
// in-memory bluge index plus an RE2 regex scan, over documents that describe
// tools (server, name, description, parameters).
//
// It knows nothing of MCP, plugins or the host: callers hand it plain [Doc]
// values, one server at a time, and get back ranked [Hit] IDs.
//
// # Analysis
//
// Every text field goes through the same analyzer (see [Analyze]): identifiers
// are split on `_`, `-`, `.`, `/`, whitespace and punctuation, and on
// camelCase boundaries ("createPullRequest" → create pull request,
// "HTTPServer" → http server). Digits stay attached to the letters before them
// ("s3Bucket" → s3 bucket, "ec2", "base64", "ipv4"): such tokens are names, and
// splitting them would index meaningless one-letter terms ("s") that match
// everywhere. Then possessives are stripped, terms are lower-cased, English
// stop words are dropped and terms are stemmed (bluge's analysis/lang/en).
//
// # Ranking
//
// A query is analysed once; every query term is looked up in every field with
// that field's weight, and a document's score is the sum (a multi-field BM25,
// k1 = 1.2, b = 0.75, each field with its own length normalisation). The idf is
// the standard log(1 + (N - n + 0.5)/(n + 0.5)), not bluge v0.2.2's default
// (see [Similarity]). Field weights are listed in [Fields]. A query equal to a
// document's ID or tool name (case-insensitively, after normalising separators
// and camelCase) always ranks that document first. Equal scores are ordered
// by ID, so results are deterministic.
//
// # Concurrency
//
// An [Index] is safe for concurrent use. [Index.ReplaceServer] applies one
// bluge batch per call; searches run on snapshots and never wait for a batch
// to be analysed.
package search
