// Package config defines plughost's configuration, loads it from layers and
// validates it.
//
// The JSON shape is the spec's, {"tools": {"mcp": {...}}}, so snippets can be
// pasted as they are. Load merges these layers, lowest first:
//
//  1. the defaults embedded in the binary (koanf.d/NN-*.json, name order);
//  2. the system layers, /etc/plughost/koanf.d/*.json (name order), on
//     Windows %ProgramData%\plughost\koanf.d\*.json (DefaultSystemDir);
//  3. the user file: --config, else $PLUGHOST_CONFIG, else
//     ~/.plughost/config.json (a missing default file is fine, a missing
//     explicit one is an error);
//  4. environment variables;
//  5. --set flags.
//
// Objects merge key by key; any other value (arrays included) replaces the
// lower one. A server set to null removes a server of a lower layer.
//
// # Environment variables
//
// PLUGHOST_ followed by the path with "__" between keys sets one value:
//
//	PLUGHOST_TOOLS__MCP__DISCOVERY__ENABLED=true
//	PLUGHOST_TOOLS__MCP__SERVERS__GITHUB__ENV__GITHUB_TOKEN=...
//
// Schema keys are matched ignoring case. A server name, env or header name
// matches an existing one of the lower layers exactly, else ignoring case; a
// new server name is lowercased, while new env and header names are kept as
// written. Dots are allowed in segments (PLUGHOST_TOOLS__MCP__SERVERS__MY.SRV__ENABLED,
// settable with env(1) though not with most shells). Variables whose name has
// no "__" (PLUGHOST_CONFIG, …) are not config paths and are ignored; a path
// that names no known key is a problem naming the variable.
//
// # --set
//
// A --set item is path=value. Keys are separated by dots; a key that is not
// made of letters, digits, "_" and "-" only is written in brackets as a
// double-quoted string, exactly as paths appear in validation messages:
//
//	--set tools.mcp.discovery.ttl=3
//	--set 'tools.mcp.servers["my.server"].enabled=true'
//	--set 'tools.mcp.servers.fs.args=["-y", "server-filesystem", "/tmp"]'
//
// # Values
//
// An environment or --set value is read as JSON when it is valid JSON, else
// as a plain string; where the schema expects a string, the text is always
// taken as is (so a command of 123 is the string "123"), and a boolean also
// accepts TRUE or False. Objects and arrays are written as JSON.
//
// # Validation
//
// Problems are *ValidationError values with the JSON path of the offending
// key and a message saying what is wrong and how to fix it, never quoting a
// secret. Validate (and Loaded.Validate for loaded configs) separates the
// fatal, global problems, which stop start-up, from each server's problems,
// which disable only that server.
package config
