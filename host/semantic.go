package host

import (
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/search"
)

// searchOptions returns the options of the tool index for
// tools.mcp.discovery.semantic: word vectors (a file that is missing or
// does not load leaves the search lexical, with a log line) and an
// embedding endpoint.
func searchOptions(cfg config.Semantic, environ []string, logger hclog.Logger) []search.Option {
	var opts []search.Option
	switch cfg.WordVectors {
	case "off", "":
	default:
		paths := []string{cfg.WordVectors}
		if cfg.WordVectors == "auto" {
			exe, _ := os.Executable()
			paths = search.WordVectorsPaths(exe, environ)
		}
		wv, path, err := search.FindWordVectors(paths)
		switch {
		case err != nil:
			logger.Warn("semantic search off: the word-vector file does not load; search stays lexical", "path", path, "error", err)
		case wv == nil:
			logger.Warn("semantic search off: no word-vector file; search stays lexical (run `make wordvec`, or set tools.mcp.discovery.semantic.word_vectors)", "looked_in", paths)
		default:
			logger.Info("semantic search on: word vectors loaded", "path", path, "words", wv.Len(), "dims", wv.Dims())
			opts = append(opts, search.WithSemantic(wv, search.Semantic{}))
		}
	}
	if e := cfg.Endpoint; e.URL != "" {
		var key string
		if e.APIKeyEnv != "" {
			key = lookupEnv(environ, e.APIKeyEnv)
		}
		emb := &search.OpenAIEmbedder{BaseURL: e.URL, Model: e.Model, APIKey: key}
		opts = append(opts, search.WithEmbedder(emb, search.Semantic{}, search.EmbedderOptions{
			Timeout: time.Duration(e.TimeoutSeconds * float64(time.Second)),
			OnError: sampledWarn(logger, "embedding endpoint failed; ranking without its vectors"),
		}))
	}
	return opts
}

// sampledWarn returns an error reporter that logs the 1st error and then
// every 100th, with the count, so an endpoint that is down does not flood
// the log at every query.
func sampledWarn(logger hclog.Logger, msg string) func(error) {
	var n atomic.Int64
	return func(err error) {
		if c := n.Add(1); c == 1 || c%100 == 0 {
			logger.Warn(msg, "error", err, "failures", c)
		}
	}
}

// lookupEnv returns the value of key in environ ("KEY=value" entries).
func lookupEnv(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
