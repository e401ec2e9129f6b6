package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/plughost/plughost/host/supervisor"
)

// describeState renders a status as the one phrase a person wants to read.
// A multi-line error (several config problems) is joined with "; ", so that
// every status stays on one line of a table or log.
func describeState(st supervisor.Status) string {
	s := stateText(st)
	if a := authText(st.Auth, time.Now()); a != "" && st.State != supervisor.StateNeedsLogin && st.State != supervisor.StateInvalid {
		s += "; " + a
	}
	return s
}

func stateText(st supervisor.Status) string {
	st.LastError = strings.ReplaceAll(st.LastError, "\n", "; ")
	switch st.State {
	case supervisor.StateNeedsLogin:
		reason := "not logged in"
		if st.Auth != nil && st.Auth.Reason != "" {
			reason = st.Auth.Reason
		}
		return fmt.Sprintf("needs login (%s): run `plughost mcp login %s`", reason, st.Name)
	case supervisor.StateConnected:
		s := fmt.Sprintf("connected, %d tools (started in %s)", st.Tools, st.StartupDuration.Round(time.Millisecond))
		for _, w := range st.Warnings {
			s += "; warning: " + w
		}
		return s
	case supervisor.StateError:
		s := "error: " + st.LastError
		if !st.NextRetry.IsZero() {
			s += fmt.Sprintf(" (retry in %s)", time.Until(st.NextRetry).Round(time.Second))
		}
		return s
	case supervisor.StateInvalid:
		return "invalid config: " + st.LastError
	case supervisor.StateDisabled:
		if st.LastError != "" {
			return "disabled (" + st.LastError + ")"
		}
		return "disabled"
	}
	return string(st.State)
}
