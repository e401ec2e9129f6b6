package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/plughost/plughost/host/tokens"
)

// authText describes a server's OAuth login in one phrase, without tokens:
// "logged in (expires in 54m, scopes read write)", "needs login: not logged in", …
func authText(a *tokens.Status, now time.Time) string {
	if a == nil {
		return ""
	}
	if a.Error != "" {
		return "login unreadable: " + a.Error
	}
	var s string
	if a.LoggedIn {
		s = "logged in"
		if d := loginDetails(a, now); d != "" {
			s += " (" + d + ")"
		}
	}
	if a.NeedsLogin {
		need := "needs login: " + a.Reason
		if len(a.WantScopes) > 0 {
			need += " (scopes " + strings.Join(a.WantScopes, " ") + ")"
		}
		if s != "" {
			return s + "; " + need
		}
		return need
	}
	return s
}

func loginDetails(a *tokens.Status, now time.Time) string {
	var parts []string
	switch left := a.ExpiresAt.Sub(now); {
	case a.ExpiresAt.IsZero():
	case left > 0:
		parts = append(parts, "expires in "+roundDuration(left))
	case a.Refreshable:
		parts = append(parts, "expired, refreshed on next use")
	default:
		parts = append(parts, "expired")
	}
	if len(a.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(a.Scopes, " "))
	}
	return strings.Join(parts, ", ")
}

// roundDuration renders d to a readable precision: 45s, 54m, 3h20m, 2d.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
