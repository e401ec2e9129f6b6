package demoserver

import (
	"context"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // zone names must resolve even where the OS has no zoneinfo

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// humanLayout is the "human" format: weekday, date, time, zone abbreviation
// and UTC offset, e.g. "Friday, 1 May 2026 14:03:07 CEST (UTC+02:00)".
const humanLayout = "Monday, 2 January 2006 15:04:05 MST (UTC-07:00)"

type currentTimeArgs struct {
	Timezone string `json:"timezone"`
	Format   string `json:"format"`
}

func currentTimeTool() server.ServerTool {
	tool := newTool("current_time",
		"Returns the current date and time, in UTC or in a given IANA time zone. "+
			"Formats: rfc3339 (default, e.g. 2026-05-01T14:03:07+02:00), unix (seconds since 1970-01-01 UTC) "+
			"or human (e.g. \"Friday, 1 May 2026 14:03:07 CEST (UTC+02:00)\").",
		hints("Current time", false),
		mcp.WithString("timezone",
			mcp.DefaultString("UTC"),
			mcp.MaxLength(64),
			mcp.Description("IANA time zone name such as \"Europe/Paris\", \"America/New_York\" or \"UTC\" (the default)."),
		),
		mcp.WithString("format",
			mcp.Enum("rfc3339", "unix", "human"),
			mcp.DefaultString("rfc3339"),
			mcp.Description("Output format: rfc3339 (default), unix or human."),
		),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(currentTime)}
}

func currentTime(_ context.Context, _ mcp.CallToolRequest, args currentTimeArgs) (*mcp.CallToolResult, error) {
	loc, err := loadZone(args.Timezone)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	text, err := formatTime(time.Now().In(loc), args.Format)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

func loadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as \"Europe/Paris\", \"America/New_York\" or \"UTC\"", name)
	}
	return loc, nil
}

func formatTime(t time.Time, format string) (string, error) {
	switch format {
	case "", "rfc3339":
		return t.Format(time.RFC3339), nil
	case "unix":
		return strconv.FormatInt(t.Unix(), 10), nil
	case "human":
		return t.Format(humanLayout), nil
	}
	return "", fmt.Errorf("unknown format %q: use rfc3339, unix or human", format)
}
