package frontdoor_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/internal/testwait"
)

// Once its context ends, a door with a drain goes on serving every route
// while /readyz says 503 "draining" and responses close their connections;
// StopNow ends the drain, and Serve returns.
func TestDrainServesWhileNotReady(t *testing.T) {
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	limits := defaultLimits()
	limits.Drain = time.Hour // only StopNow ends it
	d, err := frontdoor.New(emptyHost(t), frontdoor.Options{Listener: ln, Token: token, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	d.Mount("/api/", hello)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	defer func() {
		d.StopNow()
		<-done
	}()
	base := "http://" + ln.Addr().String()
	auth := map[string]string{"Authorization": "Bearer " + token.Reveal()}
	if code, body := get(t, base+"/readyz", nil); code != 200 {
		t.Fatalf("/readyz before the drain: %d %s, want 200", code, body)
	}

	cancel()
	testwait.Eventually(t, 10*time.Second, "/readyz to answer 503", func() bool {
		code, _ := get(t, base+"/readyz", nil)
		return code == http.StatusServiceUnavailable
	})
	for _, c := range []struct {
		path   string
		header map[string]string
		want   int
		body   string
	}{
		{"/readyz", nil, 503, `{"ready":false,"reason":"draining"}`},
		{"/readyz", auth, 503, `"reason":"draining"`},
		{"/readyz", auth, 503, `"servers":[{"name":"off"`},
		{"/api/servers", auth, 200, "hello"},
		{"/api/servers", nil, 401, "missing bearer token"},
		{"/healthz", nil, 200, `"ok"`},
	} {
		code, body := get(t, base+c.path, c.header)
		if code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("GET %s while draining: %d %q, want %d with %q", c.path, code, body, c.want, c.body)
		}
	}
	req, _ := http.NewRequest("GET", base+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !resp.Close {
		t.Errorf("a response while draining keeps its connection open (Connection: %q); want it closed so the next request goes elsewhere",
			resp.Header.Get("Connection"))
	}

	d.StopNow()
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Errorf("Serve after StopNow: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve still running 30s after StopNow")
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the listener still accepts connections after Serve returned")
	}
}

// Without a drain, a door stops accepting connections as soon as its
// context ends (the default, for a gateway on a laptop).
func TestNoDrainStopsAtOnce(t *testing.T) {
	ln, err := frontdoor.Listen("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	d, err := frontdoor.New(emptyHost(t), frontdoor.Options{Listener: ln, Token: token, Limits: defaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve without a drain still running 30s after its context ended")
	}
}
