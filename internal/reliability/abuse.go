//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/plughost/plughost/internal/proctree"
)

// httpAbuse attacks the gateway's HTTP front door: tokens, body size,
// hostile JSON, a slow client, many sessions. The gateway must refuse each
// clearly and keep serving.
func (s *suite) httpAbuse() error {
	sessions, tools := 100, 2000
	if s.full {
		sessions, tools = 1000, 20000
	}
	const readTimeout = 3
	sv, err := s.startServe("http-abuse", serveOptions{
		servers: map[string]any{"steady": s.stdio(), "catalog": s.stdio("-tools", fmt.Sprint(tools))},
		gateway: map[string]any{"read_timeout_seconds": readTimeout, "max_request_mb": 4},
	})
	if err != nil {
		return err
	}
	if _, err := sv.waitServers(90*time.Second, "servers connected", connected("steady", "catalog")); err != nil {
		return err
	}
	ctx := context.Background()
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)

	// Tokens.
	for _, t := range []struct{ name, header, query string }{
		{"missing token", "", ""},
		{"wrong token", "Bearer not-the-token", ""},
		{"token in the query string", "", "?token=" + sv.token},
		{"access_token in the query string", "Bearer " + sv.token, "?access_token=" + sv.token},
	} {
		status, body, err := rawPost(ctx, sv.base+"/mcp"+t.query, t.header, bytes.NewReader(init), int64(len(init)))
		refused := err == nil && (status == http.StatusUnauthorized || status == http.StatusBadRequest) && !strings.Contains(body, sv.token)
		s.check("http-abuse", t.name, "refused (401/400), the token not echoed", fmt.Sprintf("HTTP %d %v: %s", status, errText(err), oneLine(body, 160)), refused)
	}

	// 100 MB bodies, declared and chunked.
	const hundredMB = 100 << 20
	for _, chunked := range []bool{false, true} {
		before := proctree.RSS(sv.pid())
		stop := sv.peakRSS()
		length := int64(hundredMB)
		if chunked {
			length = -1
		}
		status, body, err := rawPost(ctx, sv.base+"/mcp", "Bearer "+sv.token, bigBody(hundredMB), length)
		peak := stop()
		name := "100 MB body (Content-Length)"
		if chunked {
			name = "100 MB body (chunked)"
		}
		ok := status == http.StatusRequestEntityTooLarge && strings.Contains(body, "max_request_mb") && peak-before < 50<<20
		// A server may close the connection while the client still writes the
		// body: the client then sees a write error instead of the 413.
		if status == 0 && err != nil && peak-before < 50<<20 {
			ok = strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe")
		}
		s.check("http-abuse", name, "413 with a JSON-RPC error naming max_request_mb; RSS grows < 50 MB",
			fmt.Sprintf("HTTP %d %v: %s; RSS +%s", status, errText(err), oneLine(body, 140), mb(peak-before)), ok)
	}

	c := sv.newClient()
	defer c.close(ctx)
	if err := c.initialize(ctx); err != nil {
		return err
	}
	// Hostile JSON within a session.
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp_steady_echo","arguments":{"text":"x","deep":` +
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`
	badUTF8 := "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"mcp_steady_echo\",\"arguments\":{\"text\":\"a\xff\xfeb\"}}}"
	batch := `[{"jsonrpc":"2.0","id":9,"method":"tools/list"},{"jsonrpc":"2.0","id":10,"method":"tools/list"}]`
	for _, t := range []struct{ name, body, expected string }{
		{"deep nesting (100,000 levels)", deep, "an answer (JSON-RPC error or result), gateway keeps serving"},
		{"invalid UTF-8", badUTF8, "an answer in valid UTF-8 JSON, gateway keeps serving"},
		{"JSON-RPC batch", batch, `an error saying batches are not supported`},
	} {
		status, body, _, err := c.post(ctx, []byte(t.body))
		answered := err == nil && json.Valid(body) && utf8.Valid(body)
		if t.name == "JSON-RPC batch" {
			answered = answered && strings.Contains(strings.ToLower(string(body)), "batch")
		}
		after := c.call(ctx, "mcp_steady_echo", map[string]any{"text": "still here"})
		s.check("http-abuse", t.name, t.expected,
			fmt.Sprintf("HTTP %d %v: %s; a call afterwards: %q", status, errText(err), oneLine(string(body), 160), oneLine(after.text+after.failure(), 60)),
			answered && after.text == "still here")
	}

	// Slowloris: headers one byte at a time.
	closedAfter, err := slowloris(sv.base)
	s.check("http-abuse", "slowloris (1 header byte / 200 ms)", fmt.Sprintf("connection closed by the read timeout (%ds) within %ds", readTimeout, readTimeout+3),
		fmt.Sprintf("closed after %.1fs %s", closedAfter.Seconds(), errText(err)), err == nil && closedAfter <= time.Duration(readTimeout+3)*time.Second)

	// Many sessions.
	heapBefore, err := sv.heapInUse(ctx)
	if err != nil {
		return err
	}
	before := proctree.RSS(sv.pid())
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	var clients []*client
	sem := make(chan struct{}, 8)
	for range sessions {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c := sv.newClient()
			err := c.initialize(ctx)
			if err == nil {
				_, err = c.request(ctx, "tools/list", map[string]any{})
			}
			c.hc.CloseIdleConnections()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				return
			}
			clients = append(clients, c)
		})
	}
	wg.Wait()
	after := proctree.RSS(sv.pid())
	heapAfter, err := sv.heapInUse(ctx)
	if err != nil {
		return err
	}
	perSession := float64(heapAfter-heapBefore) / float64(sessions)
	s.check("http-abuse", fmt.Sprintf("%d sessions on a %d-tool catalog", sessions, tools+11),
		"all open (each initialized and listed the tools); the heap they hold (after a GC) ≤ 100 MB",
		fmt.Sprintf("%d failed; heap in use %s → %s (+%s, %.1f KB per session); RSS %s → %s (includes the freed garbage of the tools/list answers)",
			failed, mb(heapBefore), mb(heapAfter), mb(heapAfter-heapBefore), perSession/1e3, mb(before), mb(after)),
		failed == 0 && heapAfter-heapBefore <= 100<<20)
	for _, c := range clients {
		c.close(ctx)
	}
	_, status, err := sv.get(ctx, "/healthz", false)
	s.check("http-abuse", "gateway after the abuse", "healthz 200, serve still running", fmt.Sprintf("healthz %d %s", status, errText(err)),
		err == nil && status == http.StatusOK)
	return nil
}

// rawPost posts body (length -1: chunked) with an Authorization header
// value (none when empty) and returns the status and up to 4 KiB of the body.
func rawPost(ctx context.Context, url, auth string, body io.Reader, length int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return 0, "", err
	}
	req.ContentLength = length
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 60 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), nil
}

// bigBody is n bytes of a JSON string literal inside a request.
func bigBody(n int) io.Reader {
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp_steady_echo","arguments":{"text":"`
	tail := `"}}}`
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('x'), int64(n-len(head)-len(tail))), strings.NewReader(tail))
}

// repeatReader yields c forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// slowloris sends a request's headers one byte every 200 ms and reports
// how long the server kept the connection open.
func slowloris(base string) (time.Duration, error) {
	addr := strings.TrimPrefix(base, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
		close(closed)
	}()
	header := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nX-Padding: " + strings.Repeat("a", 1000)
	for i := 0; i < len(header); i++ {
		select {
		case <-closed:
			return time.Since(start), nil
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := conn.Write([]byte{header[i]}); err != nil {
			return time.Since(start), nil // closed by the server
		}
		if time.Since(start) > 60*time.Second {
			break
		}
	}
	return time.Since(start), fmt.Errorf("still open after %s", time.Since(start).Round(time.Second))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}
