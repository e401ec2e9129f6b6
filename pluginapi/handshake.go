package pluginapi

import (
	"github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the wire version of the transport protocol. It is bumped only
// on a wire break, and the host keeps serving the previous version; additive
// changes are announced through Description.Features instead.
const ProtocolVersion = 1

// pluginName is the key of the transport in go-plugin's plugin set.
const pluginName = "transport"

// Handshake returns the go-plugin handshake shared by the host and every
// transport plugin. It is not a security measure: it keeps a plugin binary from
// being run by hand as if it were a normal program.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "PLUGHOST_TRANSPORT_PLUGIN",
		MagicCookieValue: "c7f4a1e2-mcp-transport",
	}
}

// PluginEnviron returns environ without the variables go-plugin adds for its
// handshake, so a transport can pass its own environment on to a server.
func PluginEnviron(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !isHandshakeVar(kv) {
			out = append(out, kv)
		}
	}
	return out
}

func isHandshakeVar(kv string) bool {
	for _, k := range handshakeEnvKeys {
		if len(kv) > len(k) && kv[:len(k)] == k && kv[len(k)] == '=' {
			return true
		}
	}
	return false
}

// handshakeEnvKeys are the variables go-plugin adds to a plugin's environment.
// They belong to the plugin mechanism, not to the MCP server it spawns.
var handshakeEnvKeys = [...]string{
	"PLUGHOST_TRANSPORT_PLUGIN", "PLUGIN_MIN_PORT", "PLUGIN_MAX_PORT",
	"PLUGIN_PROTOCOL_VERSIONS", "PLUGIN_CLIENT_CERT", "PLUGIN_MULTIPLEX_GRPC",
	"PLUGIN_UNIX_SOCKET_DIR", "PLUGIN_UNIX_SOCKET_GROUP",
}
