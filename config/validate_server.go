package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// serverValidator checks one server and files its problems under its name.
type serverValidator struct {
	p    *Problems
	name string
	s    Server
	opts ValidateOptions
}

func (v serverValidator) fail(key, msg string) {
	path := serverPath(v.name)
	if key != "" {
		path = serverPath(v.name, strings.Split(key, ".")...)
	}
	v.p.server(v.name, path, msg)
}

func (v serverValidator) check(reportExtra bool) {
	v.checkName()
	v.checkMasked()
	v.checkTimeouts()
	v.checkIsolation()
	v.checkToolFilters()
	v.checkTrust()
	if mb := v.s.MaxMessageMBOverride; mb != nil {
		if msg := messageMBProblem(*mb); msg != "" {
			v.fail("max_message_mb", msg+", or remove it to use tools.mcp.max_message_mb")
		}
	}
	if mb := v.s.MaxResultMBOverride; mb != nil {
		if msg := resultMBProblem(*mb); msg != "" {
			v.fail("max_result_mb", msg+", or remove it to use tools.mcp.max_result_mb")
		}
	}
	t := v.s.Transport()
	if reportExtra && (t == "" || IsBuiltin(t)) {
		v.checkExtra()
	}
	switch {
	case v.s.Type == "" && v.s.URL != "" && v.s.Command != "":
		v.fail("type", `both "command" and "url" are set, so the transport is ambiguous; set type to "stdio" (to run command) or "sse"/"http" (to connect to url), and remove the key the other transport does not use`)
	case t == "":
		v.fail("", `neither "command" nor "url" is set; set "command" to run a local stdio server, or "url" to connect to a remote sse/http server`)
	case t == TransportStdio:
		v.checkStdio()
	case t == TransportSSE || t == TransportHTTP:
		v.checkRemote(t)
	case !slices.Contains(v.opts.ExtraTypes, v.s.Type):
		v.fail("type", v.unknownTypeMsg())
	case v.s.OAuth != nil:
		v.notFor("oauth", t, "sse/http")
	}
}

func (v serverValidator) unknownTypeMsg() string {
	known := KnownTypesText()
	if len(v.opts.ExtraTypes) > 0 {
		known += ", " + strings.Join(v.opts.ExtraTypes, ", ")
	}
	return fmt.Sprintf(`server %q: field "type" has unknown transport %q; known types: %s. Remove "type" to detect the transport from "command" or "url", use a known type, or install a transport plugin named mcp-transport-%s`,
		trunc(v.name), trunc(v.s.Type), known, trunc(v.s.Type))
}

func (v serverValidator) checkName() {
	if msg := CheckServerName(v.name); msg != "" {
		v.fail("", msg)
	}
}

func (v serverValidator) checkTimeouts() {
	o := v.s.TimeoutOverrides
	for _, f := range []struct {
		key string
		v   *float64
	}{{"start_seconds", o.Start}, {"initialize_seconds", o.Initialize}, {"list_tools_seconds", o.ListTools}, {"call_seconds", o.Call}} {
		if f.v != nil && !(*f.v > 0) {
			v.fail("timeouts."+f.key, fmt.Sprintf("must be greater than 0, got %v; set a number of seconds, or remove it to use tools.mcp.timeouts.%s", *f.v, f.key))
		}
	}
}

func (v serverValidator) checkExtra() {
	known := slices.Sorted(maps.Keys(serverKeys()))
	for _, key := range slices.Sorted(maps.Keys(v.s.Extra)) {
		v.p.server(v.name, serverPath(v.name, key), unknownKeyMsg(key, known, ""))
	}
}

// notFor reports a key set on a server whose transport does not use it.
func (v serverValidator) notFor(key, transport, usedBy string) {
	v.fail(key, fmt.Sprintf("%q applies only to %s servers, but this server uses the %s transport; remove %q (or change \"type\")", key, usedBy, transport, key))
}

func (v serverValidator) checkStdio() {
	s := v.s
	if strings.TrimSpace(s.Command) == "" {
		v.fail("command", `a stdio server needs "command", the executable to run (e.g. "npx"); set it, or set "url" to use a remote server instead`)
	}
	if s.URL != "" {
		v.notFor("url", TransportStdio, "sse/http")
	}
	if len(s.Headers) > 0 {
		v.notFor("headers", TransportStdio, "sse/http")
	}
	if s.OAuth != nil {
		v.notFor("oauth", TransportStdio, "sse/http")
	}
	for _, name := range slices.Sorted(maps.Keys(s.Env)) {
		switch {
		case name == "" || strings.ContainsAny(name, "=\x00"):
			v.p.server(v.name, serverPath(v.name, "env", name), `invalid environment variable name: it must be non-empty and contain no "=" or NUL character`)
		case strings.ContainsRune(s.Env[name].Reveal(), 0):
			v.p.server(v.name, serverPath(v.name, "env", name), "the value contains a NUL character, which no environment can hold; remove it")
		}
	}
}

func (v serverValidator) checkRemote(transport string) {
	s := v.s
	v.checkURL("url", s.URL.Reveal(), transport)
	if s.Command != "" {
		v.notFor("command", transport, "stdio")
	}
	if len(s.Args) > 0 {
		v.notFor("args", transport, "stdio")
	}
	if len(s.Env) > 0 {
		v.notFor("env", transport, "stdio")
	}
	if s.EnvFile != "" {
		v.notFor("env_file", transport, "stdio")
	}
	if s.InheritEnv {
		v.notFor("inherit_env", transport, "stdio")
	}
	v.checkHeaders()
	v.checkOAuth()
}

func (v serverValidator) checkURL(key, raw, transport string) {
	example := `write a full address such as "https://example.com/mcp"`
	if raw == "" {
		v.fail(key, fmt.Sprintf("the %s transport needs %q, the endpoint to connect to; %s", transport, key, example))
		return
	}
	// Neither the URL nor url.Parse's error (which quotes it) is shown: a
	// URL may carry credentials.
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		v.fail(key, "is not a valid URL; "+example)
	case u.Scheme != "http" && u.Scheme != "https":
		got := "no scheme"
		if u.Scheme != "" {
			got = fmt.Sprintf("scheme %q", trunc(u.Scheme))
		}
		v.fail(key, fmt.Sprintf("must start with http:// or https://, got %s; %s", got, example))
	case u.Host == "":
		v.fail(key, "has no host; "+example)
	}
}

func (v serverValidator) checkHeaders() {
	for _, name := range slices.Sorted(maps.Keys(v.s.Headers)) {
		at := serverPath(v.name, "headers", name)
		switch {
		case !isToken(name):
			v.p.server(v.name, at, "invalid HTTP header name; use letters, digits and -, e.g. \"X-Api-Key\"")
		case strings.ContainsAny(v.s.Headers[name].Reveal(), "\r\n\x00"):
			v.p.server(v.name, at, "the value contains a line break or NUL character; remove it")
		}
	}
}

func (v serverValidator) checkOAuth() {
	o := v.s.OAuth
	if o == nil {
		return
	}
	for name := range v.s.Headers {
		if strings.EqualFold(name, "Authorization") {
			v.fail("oauth", fmt.Sprintf(`"oauth" cannot be combined with an %q header: OAuth supplies the Authorization header itself; remove the header, or remove "oauth" to keep using it`, name))
		}
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		v.fail("oauth.callback_port", fmt.Sprintf("must be between 1 and 65535, got %d; or remove it to use any free port", o.CallbackPort))
	}
	if o.Issuer != "" {
		v.checkURL("oauth.issuer", o.Issuer, "oauth")
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		v.fail("oauth.client_secret", `is set without "client_id"; set the client_id the secret belongs to, or remove the secret to register a client automatically`)
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			v.fail("oauth.client_metadata_url", `must be an https URL with a path, where the client ID metadata document is published, e.g. "https://example.com/plughost-client.json"`)
		}
	}
}

// isToken reports whether s is a valid HTTP header name (RFC 9110 token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
