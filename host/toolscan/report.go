package toolscan

import "encoding/json"

// ToolReport is the scan of one tool.
type ToolReport struct {
	// Name is the tool's name as its server lists it.
	Name string `json:"name"`
	// Server is the server that lists it, when known.
	Server string `json:"server,omitempty"`
	// Findings are what Scan found, an empty array when the tool is clean.
	Findings []Finding `json:"findings"`
}

// Flagged reports whether the tool has any finding.
func (r ToolReport) Flagged() bool { return len(r.Findings) > 0 }

// ScanAll scans every definition and returns one report per definition, in
// order, clean ones included. A definition's server is its "server" key
// when it has one (as plughost tools --json and the eval set write them).
func ScanAll(defs []json.RawMessage) []ToolReport {
	out := make([]ToolReport, 0, len(defs))
	for _, d := range defs {
		var id struct {
			Name   string `json:"name"`
			Server string `json:"server"`
		}
		_ = json.Unmarshal(d, &id) // a definition without them still gets a report
		fs := Scan(d)
		if fs == nil {
			fs = []Finding{}
		}
		out = append(out, ToolReport{Name: id.Name, Server: id.Server, Findings: fs})
	}
	return out
}
