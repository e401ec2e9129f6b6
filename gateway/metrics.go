package gateway

import (
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// metrics are the gateway's Prometheus metrics, in a registry of their own
// (no global state). Server restarts and states are read from the host at
// scrape time.
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	searches *prometheus.CounterVec
	unlocked prometheus.Counter
	unknown  prometheus.Counter
}

func newMetrics(h *host.Host, sessions func() int) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
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
		unlocked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "plughost_unlocks_total", Help: "Tools made visible in a session by a search or an exact-name call.",
		}),
		unknown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "plughost_unknown_tool_calls_total", Help: "tools/call requests refused because no tool has that name.",
		}),
	}
	m.reg.MustRegister(m.calls, m.errors, m.latency, m.searches, m.unlocked, m.unknown,
		serverCollector{h},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "plughost_gateway_sessions", Help: "Open MCP sessions."},
			func() float64 { return float64(sessions()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// call records one served call.
func (m *metrics) call(l [2]string, took time.Duration, res *mcp.CallToolResult, err error, search bool, unlocks int) {
	m.calls.WithLabelValues(l[0], l[1]).Inc()
	m.latency.WithLabelValues(l[0], l[1]).Observe(took.Seconds())
	switch {
	case err != nil:
		m.errors.WithLabelValues(l[0], l[1], "call").Inc()
	case res != nil && res.IsError:
		m.errors.WithLabelValues(l[0], l[1], "tool").Inc()
	}
	if search {
		m.searches.WithLabelValues(l[1]).Inc()
	}
	m.unlocked.Add(float64(unlocks))
}

// refused records a call of an unknown tool.
func (m *metrics) refused() { m.unknown.Inc() }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// serverCollector exports each configured server's state, restarts and
// tool count, read from the host at scrape time.
type serverCollector struct{ h *host.Host }

var (
	restartsDesc = prometheus.NewDesc("plughost_server_restarts_total", "Restarts of the server after a crash or failed attempt.", []string{"server"}, nil)
	upDesc       = prometheus.NewDesc("plughost_server_up", "1 when the server is connected, else 0.", []string{"server", "state"}, nil)
	toolsDesc    = prometheus.NewDesc("plughost_server_tools", "Tools the server lists.", []string{"server"}, nil)
)

func (c serverCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- restartsDesc
	ch <- upDesc
	ch <- toolsDesc
}

func (c serverCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.h.Statuses() {
		up := 0.0
		if st.State == supervisor.StateConnected {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.CounterValue, float64(st.Restarts), st.Name)
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up, st.Name, string(st.State))
		ch <- prometheus.MustNewConstMetric(toolsDesc, prometheus.GaugeValue, float64(st.Tools), st.Name)
	}
}
