package config

import (
	"fmt"
	"strings"
)

// Audit is tools.mcp.audit: the log of every call made through the host
// (docs/audit.md).
type Audit struct {
	// Enabled writes one JSON line per call to Dir.
	Enabled bool `json:"enabled"`
	// Dir is the directory of the log files (~ expanded by Load).
	Dir string `json:"dir"`
	// MaxFileMB rotates the current file (audit.jsonl) before it grows
	// past this many MiB.
	MaxFileMB float64 `json:"max_file_mb"`
	// MaxFiles is how many rotated files (audit-<time>.jsonl) are kept;
	// older ones are removed.
	MaxFiles int `json:"max_files"`
}

// MaxFileBytes returns MaxFileMB in bytes.
func (a Audit) MaxFileBytes() int64 { return mebibytes(a.MaxFileMB) }

// checkAudit checks tools.mcp.audit; its sizes only when it is on.
func checkAudit(p *Problems, a Audit) {
	if !a.Enabled {
		return
	}
	if strings.TrimSpace(a.Dir) == "" {
		p.fatal("tools.mcp.audit.dir", `must name a directory when the audit log is enabled (default "~/.plughost/audit"), or set tools.mcp.audit.enabled to false`)
	}
	if !(a.MaxFileMB > 0) {
		p.fatal("tools.mcp.audit.max_file_mb", fmt.Sprintf("must be greater than 0, got %v; set how many MiB one audit file may grow to before it is rotated (default 10)", a.MaxFileMB))
	}
	if a.MaxFiles < 1 {
		p.fatal("tools.mcp.audit.max_files", fmt.Sprintf("must be at least 1, got %d; set how many rotated audit files are kept (default 10)", a.MaxFiles))
	}
}
