package search

// Weights say how much each part of a tool counts in the BM25 ranking.
//
// The main parts go into one composite field in which a part with weight w is
// written w times (name, server, description, parameter names). Repeating a
// part raises its term frequencies before BM25 saturates them, like BM25F,
// and all parts share one idf and one length normalisation. Measured on the
// development benchmark, this beats scoring separate fields and summing them:
// the sum counts a term found in the name, the description and the
// parameters three times over, and each field's idf is computed on a small,
// skewed population (the server field has one value per server).
//
// The long, repetitive parts — parameter descriptions and the server's
// description — would dilute the composite field's length normalisation, so
// they are separate fields, queried with a small boost: they decide between
// tools that the main text ranks alike.
//
// Default weights and why:
//   - Name 2: the tool name is short and says what it does.
//   - Server 1, Description 1, ParamName 1: the server names the product
//     (queries often say "on GitHub"); the description is the reference
//     text; parameter names say what the tool takes ("repo", "branch").
//   - ParamDescription 0.1, ServerDescription 0 (off): see above; the server
//     description is supported but did not help on the development data.
//   - ServerContext 0.2: every tool also carries the names and descriptions
//     of its server's tools (the cluster hypothesis: a server's tools share
//     a domain), so "the note at path X" leans towards the note app whose
//     other tools talk about vaults and paths. It helps most with requests
//     that need several tools of one server.
//   - Quoted 0.3, Synonym 0.4: how much quoted literals and action synonyms
//     count in a query (see querytext.go).
type Weights struct {
	// Repetitions in the composite field; 0 leaves the part out.
	Name, Server, Description, ParamName int
	// Boosts of the separate fields; 0 leaves the field out.
	ParamDescription, ServerDescription, ServerContext float64
	// Query term weights: terms only found inside quotes, and the action
	// synonyms of a query's words; 0 leaves them out.
	Quoted, Synonym float64
}

// DefaultWeights returns the weights New uses.
func DefaultWeights() Weights {
	return Weights{
		Name: 2, Server: 1, Description: 1, ParamName: 1,
		ParamDescription: 0.1, ServerContext: 0.2,
		Quoted: 0.3, Synonym: 0.4,
	}
}

// Index field names.
const (
	fieldText       = "text"  // composite: name, server, description, parameter names
	fieldParamDesc  = "pdesc" // parameter descriptions
	fieldServerDesc = "sdesc" // server description
	fieldServerCtx  = "sctx"  // server documents: names and descriptions of the server's tools
	fieldServer     = "srv"   // tool documents: the server name, one keyword
)

type weightedField struct {
	name   string
	weight float64
}

// fields returns the fields a query searches, with their boosts.
func (w Weights) fields() []weightedField {
	out := []weightedField{{fieldText, 1}}
	if w.ParamDescription > 0 {
		out = append(out, weightedField{fieldParamDesc, w.ParamDescription})
	}
	if w.ServerDescription > 0 {
		out = append(out, weightedField{fieldServerDesc, w.ServerDescription})
	}
	return out
}

// Option configures New.
type Option func(*Index)

// WithWeights replaces the default weights.
func WithWeights(w Weights) Option {
	return func(ix *Index) { ix.weights = w }
}

// WithBM25 replaces the BM25 parameters k1 and b (default 1.2 and 0.75).
// plughost keeps the defaults; the option is API for users of the search
// package who tune the ranking to their own tools (see the package doc).
func WithBM25(k1, b float64) Option {
	return func(ix *Index) { ix.sim = &Similarity{K1: k1, B: b} }
}
