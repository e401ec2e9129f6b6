package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Token is what the token endpoint granted.
type Token struct {
	// AccessToken is sent to the server as "Bearer <AccessToken>". A secret.
	AccessToken string
	// RefreshToken gets a new access token without the user ("" when none
	// was granted). A secret.
	RefreshToken string
	// TokenType is the type the server named ("Bearer").
	TokenType string
	// Expiry is when the access token expires (zero: not said).
	Expiry time.Time
	// ExpiresIn is the lifetime the server stated (0: not said).
	ExpiresIn time.Duration
	// Scopes are the scopes granted: the response's scope, else those
	// requested.
	Scopes []string
}

// String describes t without its secrets.
func (t Token) String() string {
	return fmt.Sprintf("token (scopes %q, expires %s)", t.Scopes, t.Expiry.Format(time.RFC3339))
}

// AuthRequest is one authorization-code login to prepare.
type AuthRequest struct {
	// Metadata is the authorization server's.
	Metadata ServerMetadata
	// Client is who logs in.
	Client ClientInfo
	// RedirectURI is where the browser is sent back (the loopback callback).
	RedirectURI string
	// Scopes to ask for; none omits the scope parameter.
	Scopes []string
	// Resource is the RFC 8707 resource indicator, sent on the
	// authorization and the token request.
	Resource string
}

// Authorization is an authorization-code login in progress: the URL the
// user opens, and what the token request needs afterwards. Its verifier and
// state never leave it except in that URL (the challenge) and the token
// request.
type Authorization struct {
	// URL is the authorization request to open in a browser.
	URL string
	// State is the value the callback must bring back.
	State    string
	verifier string
	req      AuthRequest
}

// Authorize prepares a login: a fresh state and PKCE S256 verifier, and the
// authorization URL with response_type=code, client_id, redirect_uri,
// scope, state, code_challenge and resource.
func Authorize(req AuthRequest) (*Authorization, error) {
	state, err := randomString()
	if err != nil {
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if req.Resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", req.Resource))
	}
	return &Authorization{URL: config(req).AuthCodeURL(state, opts...), State: state, verifier: verifier, req: req}, nil
}

// randomString is 32 random bytes, base64url without padding.
func randomString() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// config is the x/oauth2 view of a request.
func config(req AuthRequest) *oauth2.Config {
	style := oauth2.AuthStyleInParams
	secret := req.Client.Secret
	switch req.Client.AuthMethod {
	case AuthBasic:
		style = oauth2.AuthStyleInHeader
	case AuthNone:
		secret = ""
	}
	return &oauth2.Config{
		ClientID:     req.Client.ID,
		ClientSecret: secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   req.Metadata.AuthorizationEndpoint,
			TokenURL:  req.Metadata.TokenEndpoint,
			AuthStyle: style,
		},
		RedirectURL: req.RedirectURI,
		Scopes:      req.Scopes,
	}
}

// Exchange trades the authorization code for tokens (with the PKCE verifier
// and the resource).
func (c *Client) Exchange(ctx context.Context, a *Authorization, code string) (*Token, error) {
	const step = "exchange the authorization code for tokens"
	ctx, cancel := c.tokenContext(ctx)
	defer cancel()
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(a.verifier)}
	if a.req.Resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", a.req.Resource))
	}
	tok, err := config(a.req).Exchange(ctx, code, opts...)
	if err != nil {
		return nil, stepError(step, a.req.Metadata.TokenEndpoint, tokenError(err))
	}
	return fromOAuth2(tok, a.req.Scopes)
}

// RefreshRequest is a refresh of tokens granted earlier.
type RefreshRequest struct {
	// TokenEndpoint is where to send it.
	TokenEndpoint string
	// Client is who the tokens were granted to.
	Client ClientInfo
	// RefreshToken is the grant. A secret.
	RefreshToken string
	// Scopes are those granted before, kept when the response names none.
	Scopes []string
}

// Refresh gets a new access token with a refresh token. A refresh token the
// server refused (revoked, expired) gives an error for which
// IsInvalidGrant is true.
func (c *Client) Refresh(ctx context.Context, req RefreshRequest) (*Token, error) {
	const step = "refresh the access token"
	ctx, cancel := c.tokenContext(ctx)
	defer cancel()
	cfg := config(AuthRequest{Metadata: ServerMetadata{TokenEndpoint: req.TokenEndpoint}, Client: req.Client})
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: req.RefreshToken}).Token()
	if err != nil {
		return nil, stepError(step, req.TokenEndpoint, tokenError(err))
	}
	return fromOAuth2(tok, req.Scopes)
}

// tokenContext bounds a token request and hands x/oauth2 our HTTP client.
func (c *Client) tokenContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	return context.WithValue(ctx, oauth2.HTTPClient, c.http()), cancel
}

func fromOAuth2(tok *oauth2.Token, requested []string) (*Token, error) {
	if tok.AccessToken == "" {
		return nil, errors.New("the token response has no access_token")
	}
	t := &Token{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType,
		Expiry: tok.Expiry, ExpiresIn: time.Duration(tok.ExpiresIn) * time.Second, Scopes: requested}
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		t.Scopes = strings.Fields(s)
	}
	return t, nil
}

// TokenError is an error response of the token endpoint (RFC 6749 §5.2).
type TokenError struct {
	// Status is the HTTP status.
	Status int
	// Code is the error code, e.g. "invalid_grant".
	Code string
	// Description is the error_description.
	Description string
}

// Error is "HTTP <status>: <code>: <description>".
func (e *TokenError) Error() string {
	msg := fmt.Sprintf("the token endpoint answered HTTP %d", e.Status)
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}

// IsInvalidGrant reports whether err says the grant (authorization code or
// refresh token) was refused: revoked, expired or used already.
func IsInvalidGrant(err error) bool {
	var te *TokenError
	return errors.As(err, &te) && te.Code == "invalid_grant"
}

// tokenError turns x/oauth2's errors into ours: its RetrieveError quotes
// the whole response body, which has no place in a message.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		te := &TokenError{Code: re.ErrorCode, Description: re.ErrorDescription}
		if re.Response != nil {
			te.Status = re.Response.StatusCode
		}
		return te
	}
	return plainTransportError(err)
}
