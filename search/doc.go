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
// stop words are dropped (bluge's analysis/lang/en) and plurals are folded by a
// minimal English stemmer (sStemmer).
//
// # Queries
//
// A query is a request in words ("Get me the content of note "abc123" so I
// can review it"), so besides the analyzer it goes through three rules (see
// querytext.go): quoted literals are argument values and count with
// [Weights].Quoted; number literals and request phrasing ("please", "I
// need", "give me") are dropped; the generic operation verbs (get / fetch /
// retrieve / read …, create / add / new …, delete / remove …) also search
// their synonyms with [Weights].Synonym.
//
// # Ranking
//
// A query is analysed once; every distinct query term is looked up in every
// field with that field's weight, and a document's score is the sum (a
// multi-field BM25, k1 = 1.2, b = 0.75 by default, see [WithBM25], each field
// with its own length normalisation). The idf is the standard
// log(1 + (N - n + 0.5)/(n + 0.5)), not bluge v0.2.2's default (see
// [Similarity]). Field weights are described in [Weights]. A query equal to a
// document's ID or tool name (case-insensitively, after normalising separators
// and camelCase) always ranks that document first. Equal scores are ordered
// by ID, so results are deterministic.
//
// Each server also has a server document: the names and descriptions of
// all its tools. The query is scored against the server documents too, and
// the best 50 servers add their score (weighted by [Weights].ServerContext)
// to each of their tools: a server's tools share a domain, so a tool whose
// own text does not say "vault" or "markdown" still ranks with the note app
// whose other tools do. One server document per server keeps this linear in
// the catalog size.
//
// The scores are those of a bluge BooleanQuery of boosted TermQueries, but
// they are computed term at a time into an array of per-document
// accumulators, reading bluge's postings lists directly: tool-search queries
// are long (a task in 20–30 words), and bluge's document-at-a-time
// disjunction spends most of a query in its heap. The rarest terms are read
// first; once no document that has not been seen yet can reach the k-th
// score, the remaining (common) terms are only added to the documents that
// still can. The top k are exactly those of the full evaluation (a
// max-score bound: a term adds less than boost × idf to a document). The
// server documents are ranked the same way, and their scores are added to
// the tools before the tool terms are read, so the bound still holds for
// every document not yet seen.
//
// # Semantic signal
//
// Optionally ([WithSemantic], [WithEmbedder]) vectors add a semantic
// signal: static word vectors expand a query word to its nearest words in
// the index's own vocabulary (weighted terms like any other, so the
// max-score bound still holds), and tool vectors — word-vector averages or
// an embedding endpoint's — re-rank the exact BM25 top k (see [Semantic]).
//
// # Candidates
//
// [Index.Candidates] returns the lexical stage of a search — the exact
// BM25 top k, the exact matches, the query's plain terms and their idf —
// so another re-rank of the same candidates can be measured offline
// without a copy of the index (search/research/ltr, which is not part of
// plughost).
//
// # Concurrency
//
// An [Index] is safe for concurrent use. [Index.ReplaceServer] applies one
// bluge batch per call; searches run on snapshots and never wait for a batch
// to be analysed.
package search
