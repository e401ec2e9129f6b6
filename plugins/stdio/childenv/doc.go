// Package childenv builds the environment of a stdio MCP server process.
//
// The rules are the ones users configure in `tools.mcp.servers.<name>`:
// by default the server inherits only a short allowlist of the parent's
// variables (PATH, HOME, USER, LANG, LC_ALL, TERM, SHELL, TMPDIR, every XDG_*
// and, on Windows, the basic process variables: pluginapi.IsBaseEnvKeyOn, the
// list the host starts plugins with), so secrets in the parent's
// environment do not leak to third-party servers. `inherit_env: true` passes
// the whole parent environment instead. Variables from `env_file` are added on
// top, and `env` overrides both.
//
// Values are secrets as far as this package is concerned: no error it returns
// contains one.
package childenv
