package config

import (
	"fmt"
	"strings"
)

// Trust modes of a server's tool definitions (Server.Trust, Trust.Mode).
const (
	// TrustPin records the first definitions a server lists and
	// quarantines any later change or new tool until it is approved.
	TrustPin = "pin"
	// TrustApprove quarantines a new server's every tool until it is
	// approved, then pins like TrustPin.
	TrustApprove = "approve"
	// TrustOff passes every definition as the server lists it.
	TrustOff = "off"
)

// What the scan of tool definitions does with a flagged tool
// (Server.TrustScan, Trust.Scan).
const (
	// ScanWarn shows the findings and keeps the tool usable.
	ScanWarn = "warn"
	// ScanQuarantine quarantines a flagged tool until it is approved.
	ScanQuarantine = "quarantine"
)

// Trust is tools.mcp.trust: how servers' tool definitions are pinned,
// scanned and approved (docs/security.md).
type Trust struct {
	// Mode is every server's trust unless it sets its own: "pin" (the
	// default), "approve" or "off".
	Mode string `json:"mode"`
	// Scan is what a flagged definition does unless a server sets its own
	// trust_scan: "warn" (the default) or "quarantine".
	Scan string `json:"scan"`
	// PinsFile holds the approved definitions when the sessions are kept
	// in memory (~ expanded by Load; written with mode 0600). With the
	// Redis store the pins live in Redis, shared by every replica.
	PinsFile string `json:"pins_file"`
}

// TrustMode returns the server's effective trust: its own, else the
// global mode, else TrustPin.
func (s Server) TrustMode(global Trust) string {
	for _, m := range []string{s.Trust, global.Mode} {
		if m != "" {
			return m
		}
	}
	return TrustPin
}

// ScanMode returns what a flagged definition of the server does: its own
// trust_scan, else the global scan, else ScanWarn.
func (s Server) ScanMode(global Trust) string {
	for _, m := range []string{s.TrustScan, global.Scan} {
		if m != "" {
			return m
		}
	}
	return ScanWarn
}

func validTrust(m string) bool { return m == TrustPin || m == TrustApprove || m == TrustOff }

func validScan(m string) bool { return m == ScanWarn || m == ScanQuarantine }

// checkTrust checks tools.mcp.trust.
func checkTrust(p *Problems, t Trust) {
	if t.Mode != "" && !validTrust(t.Mode) {
		p.fatal("tools.mcp.trust.mode", fmt.Sprintf(`must be "pin", "approve" or "off", got %q; "pin" (the default) quarantines changed tools until approved`, trunc(t.Mode)))
	}
	if t.Scan != "" && !validScan(t.Scan) {
		p.fatal("tools.mcp.trust.scan", fmt.Sprintf(`must be "warn" or "quarantine", got %q; "warn" (the default) only reports flagged tools`, trunc(t.Scan)))
	}
	if strings.TrimSpace(t.PinsFile) == "" {
		p.fatal("tools.mcp.trust.pins_file", `must name a file (default "~/.plughost/pins.json")`)
	}
}

// checkTrust reports a bad trust or trust_scan of a server.
func (v serverValidator) checkTrust() {
	if m := v.s.Trust; m != "" && !validTrust(m) {
		v.fail("trust", fmt.Sprintf(`must be "pin", "approve" or "off", got %q; remove it to use tools.mcp.trust.mode`, trunc(m)))
	}
	if m := v.s.TrustScan; m != "" && !validScan(m) {
		v.fail("trust_scan", fmt.Sprintf(`must be "warn" or "quarantine", got %q; remove it to use tools.mcp.trust.scan`, trunc(m)))
	}
}
