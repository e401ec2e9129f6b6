package frontdoor

import (
	"fmt"
	"net"

	"github.com/plughost/plughost/config"
)

// Listen opens the front door's TCP listener on addr. Without auth it
// refuses any address that is not loopback.
func Listen(addr string, auth bool) (net.Listener, error) {
	if err := config.CheckListen(addr, auth); err != nil {
		return nil, fmt.Errorf("listen address %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (choose another with --listen or tools.mcp.gateway.listen)", addr, err)
	}
	return ln, nil
}

func isLoopbackAddr(a net.Addr) bool {
	h, _, err := net.SplitHostPort(a.String())
	return err == nil && config.IsLoopback(h)
}
