package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Post sends body as JSON to path, any route of the serve (such as the
// dashboard's /dashboard/login-codes), with the bearer token, and decodes
// a 2xx answer into out. An error answer is an *Error.
func (c *Client) Post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("plughost serve API: encode the request to %s: %w", path, err)
	}
	return c.do(ctx, http.MethodPost, path, b, out)
}

// URL returns the serve's base URL, e.g. http://127.0.0.1:8765.
func (c *Client) URL() string { return c.base }
