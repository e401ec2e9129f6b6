package frontdoor

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

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
