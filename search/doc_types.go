package search

// Param is one input parameter of a tool.
type Param struct {
	Name        string
	Description string
}

// Doc is one tool as the index sees it.
type Doc struct {
	// ID identifies the document across the whole index (for example the
	// agent-facing tool name). It must be unique and non-empty.
	ID string
	// Server is the name of the server that owns the tool. ReplaceServer fills
	// it in when empty.
	Server string
	// Name is the tool's own name on its server.
	Name string
	// Description is the tool's description.
	Description string
	// Params are the tool's input parameters.
	Params []Param
	// ServerDescription optionally describes the server (what the product
	// is). It is indexed with a low weight: it tells which product a tool
	// belongs to when the tool's own text does not say.
	ServerDescription string
}

// Hit is one search result. Score orders hits (higher first); its scale is
// not meaningful across queries.
type Hit struct {
	ID    string
	Score float64
}
