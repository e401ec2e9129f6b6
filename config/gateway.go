package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/plughost/plughost/lib/origin"
	"github.com/plughost/plughost/lib/secret"
)

func checkGateway(p *Problems, g Gateway) {
	if err := CheckListen(g.Listen, g.Auth); err != nil {
		p.fatal("tools.mcp.gateway.listen", err.Error())
	}
	if g.Auth && strings.TrimSpace(g.TokenFile) == "" {
		p.fatal("tools.mcp.gateway.token_file", `must not be empty while auth is on; set a file for the bearer token (default "~/.plughost/gateway.token")`)
	}
	for _, lim := range []struct {
		key     string
		value   float64
		example string
	}{
		{"session_idle_minutes", g.SessionIdleMinutes, "30"},
		{"max_request_mb", g.MaxRequestMB, "8"},
		{"read_timeout_seconds", g.ReadTimeoutSeconds, "30"},
		{"idle_timeout_seconds", g.IdleTimeoutSeconds, "120"},
	} {
		if lim.value <= 0 {
			p.fatal("tools.mcp.gateway."+lim.key, fmt.Sprintf("must be greater than 0, got %v; the default is %s", lim.value, lim.example))
		}
	}
	if g.ShutdownSeconds < 0 {
		p.fatal("tools.mcp.gateway.shutdown_seconds", fmt.Sprintf("must not be negative, got %v; the default is 10", g.ShutdownSeconds))
	}
	if g.DrainSeconds < 0 || g.DrainSeconds > maxDrainSeconds {
		p.fatal("tools.mcp.gateway.drain_seconds", fmt.Sprintf("must be from 0 to %d, got %v; 0 (the default) stops at once, "+
			"and behind a load balancer a few seconds more than it takes to stop sending requests (e.g. 10) keeps rollouts free of refused connections",
			maxDrainSeconds, g.DrainSeconds))
	}
	for i, o := range g.AllowedOrigins {
		if _, err := origin.Parse(o); err != nil {
			p.fatal(indexPath("tools.mcp.gateway.allowed_origins", i), err.Error())
		}
	}
	checkStore(p, g.Store)
	checkClients(p, g.Clients)
}

// maxDrainSeconds bounds tools.mcp.gateway.drain_seconds: a drain is
// meant to outlast a load balancer's reaction, not to keep a stopped
// replica running.
const maxDrainSeconds = 600

// redisURLExample shows the form of tools.mcp.gateway.store.url.
const redisURLExample = `redis://[:password@]host:port/db, e.g. "redis://127.0.0.1:6379/0"`

func checkStore(p *Problems, s Store) {
	const path = "tools.mcp.gateway.store"
	switch s.Kind() {
	case StoreMemory:
		if s.URL != "" {
			p.fatal(path+".url", `is set but the store type is "memory", which keeps sessions in this process; `+
				`set tools.mcp.gateway.store.type to "redis" to share sessions through it, or remove the url`)
		}
		for _, key := range s.tlsKeys() {
			p.fatal(path+"."+key, `is set but the store type is "memory", which uses no Redis; `+
				`set tools.mcp.gateway.store.type to "redis" (with a rediss:// url), or remove `+key)
		}
	case StoreRedis:
		if s.URL == "" {
			p.fatal(path+".url", `is required when the store type is "redis"; set it to `+redisURLExample)
		} else if err := CheckRedisURL(s.URL.Reveal()); err != nil {
			p.fatal(path+".url", err.Error())
		}
		for _, msg := range maskedURL(s.URL.Reveal()) {
			p.fatal(path+".url", msg)
		}
		if strings.TrimSpace(s.Prefix) == "" {
			p.fatal(path+".prefix", `must not be empty with Redis: it keeps plughost's keys apart from other data; the default is "plughost:"`)
		}
		if _, prob := s.tlsConfig(); prob != nil {
			p.fatal(path+"."+prob.key, prob.msg)
		}
	default:
		p.fatal(path+".type", fmt.Sprintf(`must be "memory" or "redis", got %q`, s.Type))
	}
}

// CheckRedisURL checks a Redis URL: redis:// or rediss://, a host, an
// optional numeric port and an optional database number as the path. The
// error never shows the URL's password.
func CheckRedisURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s is not a URL; use %s", secret.MaskURL(raw), redisURLExample)
	}
	shown := secret.MaskURL(raw)
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return fmt.Errorf("%s: the scheme must be redis:// (or rediss:// for TLS); use %s", shown, redisURLExample)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%s has no host; use %s", shown, redisURLExample)
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s: port %q must be a number from 1 to 65535; use %s", shown, port, redisURLExample)
		}
	}
	if u.Query().Has("skip_verify") {
		return fmt.Errorf("%s: plughost refuses skip_verify: without verifying Redis's certificate anyone on the path can pose as Redis "+
			"and read its password and every session; remove it and give the CA that signs Redis's certificate in tools.mcp.gateway.store.tls_ca_file", shown)
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return fmt.Errorf("%s: the path must be a database number such as /0, got %q; use %s", shown, u.Path, redisURLExample)
		}
	}
	return nil
}

// CheckListen checks a gateway listen address: host:port with a port from 0
// to 65535, and — when auth is off — a loopback host, since anyone who can
// reach the port could otherwise call every tool.
func CheckListen(listen string, auth bool) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("%q is not host:port (%v); use e.g. \"127.0.0.1:8765\"", listen, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q must be a number from 0 to 65535; use e.g. \"127.0.0.1:8765\"", listen, port)
	}
	if !auth && !IsLoopback(host) {
		return fmt.Errorf("%q is not a loopback address and tools.mcp.gateway.auth is false: anyone reaching the port could call every tool; "+
			"turn auth on (the default) or listen on 127.0.0.1", listen)
	}
	return nil
}

// IsLoopback reports whether host (an IP or "localhost") only accepts
// connections from this machine. An empty host means every interface.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}
