package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ProtectedResource is a protected resource metadata document (RFC 9728).
type ProtectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// ServerMetadata is an authorization server metadata document (RFC 8414,
// or OpenID Connect discovery), reduced to what a client uses.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	RevocationEndpoint                string   `json:"revocation_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an https URL
	// of a client metadata document as client_id (the MCP spec's CIMD).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
}

// endpoints returns the URL-valued fields by name, for validation.
func (m ServerMetadata) endpoints() [][2]string {
	return [][2]string{
		{"issuer", m.Issuer}, {"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint}, {"registration_endpoint", m.RegistrationEndpoint},
		{"revocation_endpoint", m.RevocationEndpoint},
	}
}

// validate checks the fields a client needs: both endpoints present, every
// URL http(s) with a host (a hostile server must not hand out javascript: or
// file: URLs that end up in a browser).
func (m ServerMetadata) validate() error {
	if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
		return errors.New("it lacks authorization_endpoint or token_endpoint")
	}
	for _, f := range m.endpoints() {
		if f[1] == "" {
			continue
		}
		if err := checkHTTPURL(f[1]); err != nil {
			return fmt.Errorf("%s: %w", f[0], err)
		}
	}
	return nil
}

// checkHTTPURL accepts absolute http and https URLs with a host.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("not a valid URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	case u.Host == "":
		return errors.New("the URL has no host")
	}
	return nil
}

// maxDocumentBytes bounds a metadata or token document.
const maxDocumentBytes = 1 << 20

// requestTimeout bounds one request to a metadata, registration or token
// endpoint when the caller's context has no sooner deadline.
const requestTimeout = 30 * time.Second

// errNotFound says a well-known URL has no document (any status but 200):
// discovery moves on to the next candidate.
var errNotFound = errors.New("no document")

// getJSON fetches a JSON document into v. A status other than 200 is
// errNotFound (with the status); a 200 that is not JSON is an error.
func (c *Client) getJSON(ctx context.Context, rawURL string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("bad URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	resp, err := c.http().Do(req)
	if err != nil {
		return plainTransportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return fmt.Errorf("%w (HTTP %d)", errNotFound, resp.StatusCode)
	}
	return decodeJSON(resp, v)
}

// decodeJSON reads a JSON response body into v, naming what is wrong.
func decodeJSON(resp *http.Response, v any) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return plainTransportError(err)
	}
	if len(body) > maxDocumentBytes {
		return fmt.Errorf("the document is larger than %d bytes", maxDocumentBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if ct == "" {
			ct = "no content type"
		}
		return fmt.Errorf("the response is not a JSON document (%s, %d bytes): %v", ct, len(body), err)
	}
	return nil
}

// plainTransportError drops the URL from a *url.Error (its query could
// carry secrets; the caller names the URL itself).
func plainTransportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("no answer in time: %w", ue.Err)
		}
		return ue.Err
	}
	return err
}

// protocolVersion is the MCP version named on discovery requests.
const protocolVersion = "2025-11-25"

// wellKnown returns the URL of a well-known document for base: the path
// inserted after /.well-known/<suffix> (RFC 8414 §3, RFC 9728 §3.1), or the
// root document when pathSuffixed is false or base has no path.
func wellKnown(base *url.URL, suffix string, pathSuffixed bool) string {
	s := base.Scheme + "://" + base.Host + "/.well-known/" + suffix
	if p := strings.TrimSuffix(base.EscapedPath(), "/"); pathSuffixed && p != "" {
		s += p
	}
	return s
}

// hasPath reports whether u has a path beyond "/".
func hasPath(u *url.URL) bool { return strings.Trim(u.EscapedPath(), "/") != "" }

// sameIssuer compares issuer identifiers, ignoring one trailing slash.
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// bindsTo reports whether a declared resource identifier names the server
// at target (RFC 9728 §3.3): same scheme and host, and a path equal to the
// target's or a parent of it at a segment boundary (a server at /mcp may
// declare its origin as the resource).
func bindsTo(resource string, target *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || !strings.EqualFold(r.Scheme, target.Scheme) || !strings.EqualFold(r.Host, target.Host) ||
		r.RawQuery != target.RawQuery || r.Fragment != "" {
		return false
	}
	rp, tp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(target.EscapedPath(), "/")
	return rp == tp || strings.HasPrefix(tp, rp+"/")
}
