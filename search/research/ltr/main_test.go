package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plughost/plughost/internal/fakeopenai"
)

// data is the benchmark in testdata: three tools, three single-tool
// queries and a multi-step one.
var data = []string{
	"--tools", filepath.Join("testdata", "eval_tools.json"),
	"--queries", filepath.Join("testdata", "eval_queries.json"),
	"--queries", filepath.Join("testdata", "eval_multistep.json"),
}

// runLTR runs the command with args and no environment.
func runLTR(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, &out, &errOut, nil)
	return out.String(), errOut.String(), err
}

func TestReport(t *testing.T) {
	stdout, stderr, err := runLTR(t, append(data, "--vectors", filepath.Join(t.TempDir(), "none.bin"))...)
	if err != nil || !strings.Contains(stderr, "the dense feature is 0") {
		t.Fatalf("err %v, stderr %q: want success and a note that there are no word vectors", err, stderr)
	}
	for _, want := range []string{"lexical (BM25 order): A ", "coordinate ascent, depth 30", "chosen on A: ", "chosen on B: ",
		"ablation of coordinate ascent, depth 30", "without name_cover", "weights (raw features)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in the report:\n%s", want, stdout)
		}
	}
	stdout, _, err = runLTR(t, append(data, "--json")...)
	var rep Report
	if err != nil || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Trainers) != len(Trainers()) || len(rep.Ablation) != len(AblatedTrainers()) {
		t.Errorf("--json: err %v, %d trainers, %d ablations from\n%s", err, len(rep.Trainers), len(rep.Ablation), stdout)
	}
}

// embeddings serves an OpenAI-compatible /v1/embeddings API whose vectors
// count word lengths, and counts its calls.
func embeddings(t *testing.T, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(fakeopenai.WordLengthEmbeddings(calls))
	t.Cleanup(srv.Close)
	return srv
}

func TestReportWithAnEndpoint(t *testing.T) {
	var calls atomic.Int64
	srv := embeddings(t, &calls)
	stdout, stderr, err := runLTR(t, append(data, "--embeddings", srv.URL+"/v1")...)
	if err != nil || strings.Contains(stderr, "the dense feature is 0") {
		t.Fatalf("err %v, stderr %q: want success with the endpoint as the dense feature", err, stderr)
	}
	if !strings.Contains(stdout, "lexical (BM25 order): A ") || calls.Load() == 0 {
		t.Errorf("%d calls to the endpoint, report:\n%s", calls.Load(), stdout)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	if _, _, err := runLTR(t, append(data, "--embeddings", down.URL+"/v1")...); err == nil || !strings.Contains(err.Error(), "embedding tools") {
		t.Errorf("an endpoint that is down: err %v, want one saying the tools could not be embedded", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--tools", filepath.Join("testdata", "eval_tools.json")},
		append(data, "--no-such-flag"),
		append(data, "extra"),
		append(data, "--vectors", "v.bin", "--embeddings", "http://127.0.0.1:1/v1"),
		append(data, "--embeddings", "http://127.0.0.1:1/v1", "--embeddings-key-env", "LTR_TEST_UNSET"),
	} {
		if _, _, err := runLTR(t, args...); !errors.As(err, new(usageError)) {
			t.Errorf("%q: err %v, want a usage error", args, err)
		}
	}
}
