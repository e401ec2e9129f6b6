package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/manage"
)

// Client calls the API of a running serve. It is safe for concurrent use.
type Client struct {
	base  string
	token secret.String
	http  *http.Client
}

// Dial returns a client of the serve rt describes, after checking that it
// answers with its token (GET /api/status, at most pingTimeout): a serve
// that is not there, or not the one the runtime file names, is an error.
func Dial(ctx context.Context, rt Runtime) (*Client, Status, error) {
	tok, err := readToken(rt)
	if err != nil {
		return nil, Status{}, err
	}
	c := &Client{base: rt.URL, token: secret.String(tok), http: &http.Client{}}
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var st Status
	if err := c.do(pctx, http.MethodGet, "/api/status", nil, &st); err != nil {
		return nil, Status{}, err
	}
	if st.PID != rt.PID {
		return nil, Status{}, fmt.Errorf("the serve at %s is pid %d, not pid %d of the runtime file", rt.URL, st.PID, rt.PID)
	}
	return c, st, nil
}

// pingTimeout bounds Dial's check that serve answers.
const pingTimeout = 3 * time.Second

// Servers returns every configured server and the outcome of the last
// reload, following the pages of GET /api/servers (MaxPageSize servers
// each) to the last.
func (c *Client) Servers(ctx context.Context) (ServerList, error) {
	var all ServerList
	p := pageRequest{limit: MaxPageSize}
	for {
		var page ServerList
		if err := c.do(ctx, http.MethodGet, "/api/servers?"+p.query(), nil, &page); err != nil {
			return ServerList{}, err
		}
		if p.cursor == "" {
			all = page
		} else {
			all.Servers = append(all.Servers, page.Servers...)
		}
		if page.NextCursor == "" {
			all.NextCursor = ""
			return all, nil
		}
		if page.NextCursor <= p.cursor {
			return ServerList{}, fmt.Errorf("GET /api/servers: next_cursor %q does not move past %q", page.NextCursor, p.cursor)
		}
		p.cursor = page.NextCursor
	}
}

// Server returns one server's detail; an unknown name is an *Error with
// code not_found.
func (c *Client) Server(ctx context.Context, name string) (host.ServerDetail, error) {
	var out host.ServerDetail
	return out, c.do(ctx, http.MethodGet, "/api/servers/"+url.PathEscape(name), nil, &out)
}

// Tools returns the tools a new session sees.
func (c *Client) Tools(ctx context.Context) ([]registry.Tool, error) {
	var out ToolList
	return out.Tools, c.do(ctx, http.MethodGet, "/api/tools", nil, &out)
}

// Call calls the tool name with args (a JSON object) in a session of its
// own. The result keeps what the server sent beyond mcp-go's fields
// (host.CallResult.JSON writes it out again). A call whose OAuth server
// wants a new login fails with a *host.NeedsLoginError, as in process.
func (c *Client) Call(ctx context.Context, name string, args json.RawMessage) (host.CallResult, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/api/tools/"+url.PathEscape(name)+"/call", args, &raw); err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.Code == CodeNeedsLogin && ae.NeedsLogin != nil {
			return host.CallResult{}, ae.NeedsLogin // the caller may log in and call again
		}
		return host.CallResult{}, err
	}
	res, err := host.DecodeToolResult(raw)
	if err != nil {
		return host.CallResult{}, fmt.Errorf("decode the result of %s: %w", name, err)
	}
	return host.CallResult{Result: res}, nil
}

// Reload makes serve load its config file again and apply it.
func (c *Client) Reload(ctx context.Context) (manage.ReloadResult, error) {
	var out manage.ReloadResult
	return out, c.do(ctx, http.MethodPost, "/api/reload", nil, &out)
}

// do sends one request and decodes a 2xx answer into out, or returns the
// API's *Error.
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("plughost serve API: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token.Reveal())
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("plughost serve API at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return responseError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("plughost serve API: decode the answer to %s %s: %w", method, path, err)
	}
	return nil
}

// responseError turns an error response into an *Error (a body that is
// not the API's JSON, such as the token check's text, becomes its message).
func responseError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb errorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
		eb.Error.Status = resp.StatusCode
		return eb.Error
	}
	return &Error{Status: resp.StatusCode, Code: CodeInternal, Message: fmt.Sprintf("plughost serve API: %s: %s", resp.Status, bytes.TrimSpace(b))}
}
