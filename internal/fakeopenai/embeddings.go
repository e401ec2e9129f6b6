package fakeopenai

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
)

// WordLengthEmbeddings is an OpenAI-compatible /v1/embeddings endpoint whose
// 8-dimensional vectors count the input's words by length (mod 8), so
// texts sharing words of the same lengths come out alike. It counts its
// calls in calls when that is not nil, and answers anything but a POST of
// {"input": [...]} to /v1/embeddings with 400.
func WordLengthEmbeddings(calls *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		var body struct{ Input []string }
		if req.URL.Path != "/v1/embeddings" || json.NewDecoder(req.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range body.Input {
			v := make([]float32, 8)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				v[len(word)%8]++
			}
			v[0] += 0.1
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	})
}
