package gateway_test

import (
	"sync"
	"testing"

	"github.com/plughost/plughost/internal/testredis"
)

func TestExperimentDeletedMidCall(t *testing.T) {
	f := newFake(0)
	h, _ := fakeHost(t, map[string]*fake{"s": f}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	var wg sync.WaitGroup
	var r reply
	wg.Go(func() { r = c.request(1, "tools/call", `{"name":"mcp_s_slow","arguments":{}}`) })
	<-f.started
	if d := c.do("DELETE", "", nil); d.status != 204 {
		t.Fatalf("DELETE: %d %s", d.status, d.body)
	}
	close(f.release)
	wg.Wait()
	t.Logf("memory: %d %v %s", r.status, r.header, r.body)

	srv := testredis.New(t)
	hA, ghA, _ := replica(t, srv.URL(0))
	hB, _, _ := replica(t, srv.URL(0))
	urlA, _ := serveHTTP(t, hA)
	urlB, _ := serveHTTP(t, hB)
	a := newRaw(t, urlA)
	a.initialize()
	b := newRaw(t, urlB)
	b.session = a.session
	wg.Go(func() { r = a.request(1, "tools/call", `{"name":"mcp_gh_slow","arguments":{}}`) })
	<-ghA.started
	if d := b.do("DELETE", "", nil); d.status != 204 {
		t.Fatalf("DELETE: %d %s", d.status, d.body)
	}
	close(ghA.release)
	wg.Wait()
	t.Logf("redis: %d %v %s", r.status, r.header, r.body)
}
