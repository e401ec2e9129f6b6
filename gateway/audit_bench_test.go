package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/audit"
)

// auditSide is one gateway of BenchmarkToolsCallAudit: audit log on or off.
type auditSide struct {
	h       *host.Host
	handler http.Handler
	session string
	took    []time.Duration
}

func newAuditSide(b *testing.B, on bool) *auditSide {
	t := &testing.T{}
	h, _ := fakeHost(t, map[string]*fake{"s": newFake(5)}, func(m map[string]any) {
		m["audit"] = map[string]any{"enabled": on, "dir": b.TempDir()}
	})
	s := &auditSide{h: h, handler: gateway.New(h, gateway.Options{}).HTTPHandler()}
	init := s.post(b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	s.session = init.Header().Get("Mcp-Session-Id")
	return s
}

func (s *auditSide) post(b *testing.B, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", gateway.MCPPath, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("%d %s", rec.Code, rec.Body)
	}
	return rec
}

// BenchmarkToolsCallAudit is a tools/call through the HTTP gateway to an
// in-process server — the cheapest call there is, so the audit log's share
// is the largest — on two hosts, audit log off and on, alternating call
// by call so that the machine's load hits both alike. It reports each
// side's median time per call (robust to the shared machine's stalls,
// which a mean is not) and their ratio (on / off).
func BenchmarkToolsCallAudit(b *testing.B) {
	off, on := newAuditSide(b, false), newAuditSide(b, true)
	defer off.h.Close()
	defer on.h.Close()
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"hello"}}}`
	n := 0
	for b.Loop() {
		first, second := off, on
		if n%2 == 1 {
			first, second = on, off
		}
		for _, s := range []*auditSide{first, second} {
			began := time.Now()
			s.post(b, call)
			s.took = append(s.took, time.Since(began))
		}
		n++
	}
	offMedian, onMedian := median(off.took), median(on.took)
	b.ReportMetric(float64(offMedian.Nanoseconds()), "off-p50-ns")
	b.ReportMetric(float64(onMedian.Nanoseconds()), "on-p50-ns")
	b.ReportMetric(float64(onMedian)/float64(offMedian), "on/off")
	if st := on.h.Activity(audit.Filter{Limit: 1}).Stats; st.Written+st.Dropped == 0 {
		b.Errorf("audit on but nothing recorded: %+v", st)
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
