package dashboard

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// asset is one static file, prepared once: its bytes, a gzip copy when
// that is smaller, and the validators a browser revalidates with.
type asset struct {
	contentType string
	body, gz    []byte
	// etag names the bytes; the gzip copy's is etag with "-gz" inside the
	// quotes, since the two encodings are different representations.
	etag, gzETag string
}

// assetTable holds every file of the page by its URL path ("/" is
// index.html). It is built once and only read: safe for concurrent use.
type assetTable map[string]*asset

// newAssetTable reads every file of files, plus the rules module.
func newAssetTable(files fs.FS) (assetTable, error) {
	t := assetTable{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		t["/"+name] = newAsset(name, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the dashboard's files: %w", err)
	}
	if index, ok := t["/index.html"]; ok {
		t["/"] = index
	}
	t[RulesPath] = newAsset(RulesPath, rulesModule())
	return t, nil
}

// newAsset prepares the file name holding b.
func newAsset(name string, b []byte) *asset {
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = http.DetectContentType(b)
	}
	if strings.HasSuffix(name, ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	sum := sha256.Sum256(b)
	tag := hex.EncodeToString(sum[:8])
	a := &asset{contentType: ct, body: b, etag: `"` + tag + `"`, gzETag: `"` + tag + `-gz"`}
	if strings.HasPrefix(ct, "image/png") {
		return a // already compressed
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level never fails
	_, _ = zw.Write(b)                                       // writes to memory do not fail
	_ = zw.Close()
	if buf.Len() < len(b) {
		a.gz = buf.Bytes()
	}
	return a
}

// serve writes the asset: gzip when the request accepts it, and 304 when
// the browser's copy (If-None-Match) is current.
func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache") // revalidate every time: a new plughost may serve new files
	h.Set("Vary", "Accept-Encoding")
	body, tag := a.body, a.etag
	if a.gz != nil && acceptsGzip(r) {
		body, tag = a.gz, a.gzETag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", tag)
	if matchesETag(r.Header.Get("If-None-Match"), tag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body) // the client went away: nothing to do
	}
}

// acceptsGzip reports whether Accept-Encoding allows gzip (q=0 refuses).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

// matchesETag reports whether an If-None-Match header names tag (or is *).
func matchesETag(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}
