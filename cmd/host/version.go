package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// commit and date are stamped by the release build
// (-ldflags "-X main.commit=… -X main.date=…"); a plain go build leaves
// them empty and the module's VCS stamp stands in.
var commit, date string

// buildInfo is what `plughost version` prints.
type buildInfo struct {
	Version, Commit, Date, Go, Platform string
}

// currentBuild describes this binary.
func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok && b.Commit == "" {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
			}
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

func newVersionCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date and Go version",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			b := currentBuild()
			fmt.Fprintf(g.stdout, "plughost %s\ncommit:   %s\nbuilt:    %s\ngo:       %s %s\n",
				b.Version, b.Commit, b.Date, b.Go, b.Platform)
			return nil
		},
	}
}
