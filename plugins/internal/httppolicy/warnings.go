package httppolicy

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Warnings returns human-readable warnings about a valid server URL, such as
// plain http to a host other than loopback. It returns nil for an invalid URL
// (NewClient reports that) and never repeats secrets from the URL.
func Warnings(serverURL string) []string {
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" || isLoopback(u.Hostname()) {
		return nil
	}
	return []string{fmt.Sprintf(
		"url uses plain http to %s: traffic (including headers) is not encrypted; use https", u.Hostname())}
}

// isLoopback reports loopback IPs and the names RFC 6761 reserves for them.
func isLoopback(host string) bool {
	h := strings.ToLower(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}
