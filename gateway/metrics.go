package gateway

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/plughost/plughost/host"
)

// metrics are the gateway's Prometheus metrics. They are registered by
// whoever serves /metrics (the front door), through Collectors: no global
// registry.
type metrics struct {
	calls      *prometheus.CounterVec
	errors     *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	searches   *prometheus.CounterVec
	unknown    prometheus.Counter
	reused     prometheus.Counter
	collectors []prometheus.Collector
}

func newMetrics(h *host.Host) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plughost_tool_calls_total", Help: "Tool calls served by the gateway, by server and the server's tool name.",
		}, []string{"server", "tool"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plughost_tool_errors_total",
			Help: "Tool calls that failed: kind=tool (the tool returned isError) or kind=call (server down, crash, timeout, bad arguments).",
		}, []string{"server", "tool", "kind"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "plughost_tool_call_duration_seconds",
			Help:    "Time from the gateway handing a call to the host until its result.",
			Buckets: []float64{.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 120},
		}, []string{"server", "tool"}),
		searches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plughost_searches_total", Help: "Discovery searches, by search tool.",
		}, []string{"tool"}),
		unknown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "plughost_unknown_tool_calls_total", Help: "tools/call requests refused because no tool has that name.",
		}),
		reused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "plughost_reused_request_ids_total", Help: "Requests refused because the client reused the id of a request still in progress in the session.",
		}),
	}
	m.collectors = []prometheus.Collector{m.calls, m.errors, m.latency, m.searches, m.unknown, m.reused,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "plughost_unlocks_total", Help: "Tools made visible in a session by a search or an exact-name call.",
		}, func() float64 { return float64(h.UnlockCount()) }),
	}
	if counter, ok := h.Sessions().(interface{ Len() int }); ok {
		m.collectors = append(m.collectors, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "plughost_gateway_sessions", Help: "Open MCP sessions in the session store.",
		}, func() float64 { return float64(counter.Len()) }))
	}
	return m
}

// Collectors returns the gateway's Prometheus collectors, to register where
// /metrics is served.
func (g *Gateway) Collectors() []prometheus.Collector { return g.metrics.collectors }

// call records one served call.
func (m *metrics) call(l [2]string, took time.Duration, isError bool, err error, search bool) {
	m.calls.WithLabelValues(l[0], l[1]).Inc()
	m.latency.WithLabelValues(l[0], l[1]).Observe(took.Seconds())
	switch {
	case err != nil:
		m.errors.WithLabelValues(l[0], l[1], "call").Inc()
	case isError:
		m.errors.WithLabelValues(l[0], l[1], "tool").Inc()
	}
	if search {
		m.searches.WithLabelValues(l[1]).Inc()
	}
}

// refused records a call of an unknown tool.
func (m *metrics) refused() { m.unknown.Inc() }

// reusedID records a request refused for reusing the id of one in progress.
func (m *metrics) reusedID() { m.reused.Inc() }
