//go:build unix

package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/search"
)

func TestSearchOptionsDegradeWithALogLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "wv.bin")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := search.WriteWordVectors(f, []string{"note"}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	bad := filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(bad, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		cfg     config.Semantic
		environ []string
		opts    int
		wantLog string
	}{
		{"off", config.Semantic{WordVectors: "off"}, nil, 0, ""},
		{"missing file", config.Semantic{WordVectors: filepath.Join(dir, "nope.bin")}, nil, 0, "no word-vector file; search stays lexical"},
		{"corrupt file", config.Semantic{WordVectors: bad}, nil, 0, "does not load"},
		{"auto via env", config.Semantic{WordVectors: "auto"}, []string{"PLUGHOST_WORDVEC=" + good}, 1, "word vectors loaded"},
		{"endpoint", config.Semantic{WordVectors: "off", Endpoint: config.EmbeddingEndpoint{URL: "http://127.0.0.1:1/v1", Model: "m", TimeoutSeconds: 1}}, nil, 1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info})
			opts := searchOptions(tt.cfg, tt.environ, logger)
			if len(opts) != tt.opts {
				t.Errorf("%d options, want %d", len(opts), tt.opts)
			}
			if tt.wantLog == "" && buf.Len() > 0 || !strings.Contains(buf.String(), tt.wantLog) {
				t.Errorf("log = %q, want %q", buf.String(), tt.wantLog)
			}
			ix, err := search.New(opts...)
			if err != nil {
				t.Fatal(err)
			}
			ix.Close()
		})
	}
}
