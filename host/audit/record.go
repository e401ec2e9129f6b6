package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Outcome is how a call ended, as a class: never a message, which could
// quote the arguments or the result.
type Outcome string

// The outcomes of a record.
const (
	// OK: the call returned a result.
	OK Outcome = "ok"
	// ToolError: the tool ran and reported its own failure (isError).
	ToolError Outcome = "tool_error"
	// Task: the server created a task for the call (its result comes later).
	Task Outcome = "task"
	// RPCError: the server (or the client, for a server request passed to it) answered
	// with a JSON-RPC error; Record.Code holds its code.
	RPCError Outcome = "rpc_error"
	// Unknown: no such tool, resource or prompt.
	Unknown Outcome = "unknown"
	// Quarantined: the tool waits for approval of its definition (tool
	// trust), so the call was refused.
	Quarantined Outcome = "quarantined"
	// Invalid: the request was malformed (arguments not an object …).
	Invalid Outcome = "invalid"
	// Unavailable: the server was down, starting or restarting.
	Unavailable Outcome = "unavailable"
	// NeedsLogin: the server's OAuth login must be renewed.
	NeedsLogin Outcome = "needs_login"
	// Timeout: no answer within the timeout.
	Timeout Outcome = "timeout"
	// Canceled: the caller went away or cancelled.
	Canceled Outcome = "canceled"
	// Denied: the caller may not make this call.
	Denied Outcome = "denied"
	// NotRouted: a server's request no client session could take (none or
	// several could have caused it, or its client does not support it).
	NotRouted Outcome = "not_routed"
	// Declined and Dismissed: the user declined or dismissed an
	// elicitation (its result's action "decline" or "cancel").
	Declined  Outcome = "declined"
	Dismissed Outcome = "dismissed"
	// Error: any other failure (the server crashed, the session ended …).
	Error Outcome = "error"
	// Dropped marks a line that reports records lost because the queue was
	// full; Record.Dropped says how many.
	Dropped Outcome = "dropped"
)

// AdminClient is Record.Client for a session opened with the
// administrator's token, and for an embedding agent's sessions.
const AdminClient = "admin"

// Record is one audited call. Its JSON form is one line of the log file
// and one element of GET /api/activity.
type Record struct {
	// Time is when the call began.
	Time time.Time `json:"time"`
	// Client is the configured client whose session made the call, or
	// AdminClient; "" when no session is known (a server request no
	// session took, or whose session ended meanwhile).
	Client string `json:"client"`
	// Session is the session's id ("" when not known).
	Session string `json:"session,omitempty"`
	// Server is the server that answered, or "plughost" for what the host
	// answers itself (search tools, read_file, search_files); "" when the
	// call never reached one (an unknown name).
	Server string `json:"server"`
	// Method is the MCP method: tools/call, resources/read, prompts/get,
	// sampling/createMessage, elicitation/create or roots/list; or
	// plughost/approve for an approval of a quarantined tool (tool trust).
	Method string `json:"method"`
	// Name is the tool (the server's own name), the resource URI or the
	// prompt; empty for a server request passed to it.
	Name string `json:"name,omitempty"`
	// DurationMS is how long the call took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Outcome is how it ended.
	Outcome Outcome `json:"outcome"`
	// Code is the JSON-RPC error code of an RPCError outcome.
	Code int `json:"code,omitempty"`
	// BytesIn is the size of the request's arguments (or params), BytesOut
	// of the result's content.
	BytesIn  int `json:"bytes_in"`
	BytesOut int `json:"bytes_out"`
	// ArgsSHA256 is the first 16 hex digits of the SHA-256 of the
	// arguments as sent: equal calls have equal hashes, and the arguments
	// themselves are never kept.
	ArgsSHA256 string `json:"args_sha256,omitempty"`
	// Dropped, on a line of Outcome Dropped, counts the records lost
	// before it.
	Dropped int64 `json:"dropped,omitempty"`
}

// TimeFormat is how Record.Time is written: RFC 3339, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON writes the record with its time in TimeFormat, as one line
// of the log file holds it.
func (r Record) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil), nil
}

// HashArgs returns Record.ArgsSHA256 of raw arguments ("" for none).
func HashArgs(args []byte) string {
	if len(args) == 0 {
		return ""
	}
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:8])
}

// Milliseconds converts d for Record.DurationMS, to the microsecond.
func Milliseconds(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
