// Package frontdoor is plughost's one HTTP front door. A Door owns the
// listener and everything every route shares: the loopback rule (no token
// only on loopback), the bearer token (constant-time, never in a query
// string), DNS-rebinding protection, request body and time limits, and
// graceful shutdown; it serves /healthz, /readyz and Prometheus /metrics
// itself and mounts the front ends — the MCP gateway at /mcp, and /api, the
// dashboard and /oauth/callback as they arrive — behind the same auth.
// Prometheus stays here and in the front ends, never in the core.
package frontdoor
