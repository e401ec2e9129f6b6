package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// Token endpoint authentication methods (RFC 7591 §2).
const (
	AuthNone   = "none"
	AuthBasic  = "client_secret_basic"
	AuthPost   = "client_secret_post"
	defaultFor = AuthBasic // what RFC 8414 assumes when a server lists none
)

// ClientInfo is an OAuth client as the authorization server knows it.
type ClientInfo struct {
	// ID is the client_id.
	ID string
	// Secret is the client secret ("" for a public client). A secret.
	Secret string
	// AuthMethod is how the client authenticates at the token endpoint:
	// AuthNone, AuthBasic or AuthPost.
	AuthMethod string
}

// String describes c without its secret.
func (c ClientInfo) String() string {
	return fmt.Sprintf("client %s (%s)", c.ID, c.AuthMethod)
}

// AuthMethodFor picks how a client authenticates at the token endpoint
// (RFC 8414 token_endpoint_auth_methods_supported): a client without a
// secret uses none; one with a secret uses client_secret_basic when the
// server supports it (or lists nothing, RFC 8414's default), else
// client_secret_post, else none.
func AuthMethodFor(md ServerMetadata, hasSecret bool) string {
	if !hasSecret {
		return AuthNone
	}
	supported := md.TokenEndpointAuthMethodsSupported
	switch {
	case len(supported) == 0 || slices.Contains(supported, AuthBasic):
		return AuthBasic
	case slices.Contains(supported, AuthPost):
		return AuthPost
	}
	return AuthNone
}

// registrationAuthMethod is the method a new client asks for: none (a
// public client protected by PKCE) when the server allows it, else what the
// server supports.
func registrationAuthMethod(md ServerMetadata) string {
	supported := md.TokenEndpointAuthMethodsSupported
	switch {
	case len(supported) == 0 || slices.Contains(supported, AuthNone):
		return AuthNone
	case slices.Contains(supported, AuthBasic):
		return AuthBasic
	case slices.Contains(supported, AuthPost):
		return AuthPost
	}
	return AuthNone
}

// RegisterRequest is what a new client tells the authorization server.
type RegisterRequest struct {
	// ClientName is shown to the user on the consent page.
	ClientName string
	// RedirectURI is the loopback callback URL.
	RedirectURI string
}

// registration is the RFC 7591 client metadata sent and received.
type registration struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ClientID                string   `json:"client_id,omitempty"`
	ClientSecret            string   `json:"client_secret,omitempty"`
}

// oauthError is an RFC 6749 §5.2 / RFC 7591 §3.2.2 error response.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// Register registers a new client with the authorization server (RFC 7591).
func (c *Client) Register(ctx context.Context, md ServerMetadata, req RegisterRequest) (ClientInfo, error) {
	const step = "register a client (dynamic client registration)"
	if md.RegistrationEndpoint == "" {
		return ClientInfo{}, stepError(step, "", errors.New(
			"the authorization server offers no registration endpoint; set oauth.client_id (and oauth.client_secret) to a client registered with it"))
	}
	want := registrationAuthMethod(md)
	body, _ := json.Marshal(registration{
		ClientName: req.ClientName, RedirectURIs: []string{req.RedirectURI},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: want,
	})
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return ClientInfo{}, stepError(step, md.RegistrationEndpoint, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.http().Do(hreq)
	if err != nil {
		return ClientInfo{}, stepError(step, md.RegistrationEndpoint, plainTransportError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return ClientInfo{}, stepError(step, md.RegistrationEndpoint, statusError(resp))
	}
	var got registration
	if err := decodeJSON(resp, &got); err != nil {
		return ClientInfo{}, stepError(step, md.RegistrationEndpoint, err)
	}
	if got.ClientID == "" {
		return ClientInfo{}, stepError(step, md.RegistrationEndpoint, errors.New("the response has no client_id"))
	}
	method := got.TokenEndpointAuthMethod
	switch {
	case method != "":
	case got.ClientSecret != "" && want == AuthNone:
		method = defaultFor
	default:
		method = want
	}
	return ClientInfo{ID: got.ClientID, Secret: got.ClientSecret, AuthMethod: method}, nil
}

// statusError describes an error response: its status and, when the body
// is an OAuth error document, its error code and description.
func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var oe oauthError
	if json.Unmarshal(body, &oe) == nil && oe.Error != "" {
		if oe.Description != "" {
			return fmt.Errorf("HTTP %d: %s: %s", resp.StatusCode, oe.Error, oe.Description)
		}
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, oe.Error)
	}
	return fmt.Errorf("HTTP %d", resp.StatusCode)
}
