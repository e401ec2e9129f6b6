package artifacts

import (
	"bufio"
	"context"
	"errors"
	"io"
)

// line is one line of a file as the paging tools see it: at most keep bytes
// of it (without the newline) and how many bytes were left out.
type line struct {
	num  int
	text []byte
	cut  int
}

// scanLines calls fn for each line of r (split on '\n'; a final newline does
// not start another line), keeping at most keep bytes of each; fn returns
// false to stop early. It returns the number of lines seen. text is reused
// between calls. Long lines cost no more memory than keep.
func scanLines(ctx context.Context, r io.Reader, keep int, fn func(line) bool) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var cur line
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			end := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
			if end {
				chunk = chunk[:len(chunk)-1]
			}
			if room := keep - len(cur.text); room > 0 {
				take := min(room, len(chunk))
				cur.text = append(cur.text, chunk[:take]...)
				cur.cut += len(chunk) - take
			} else {
				cur.cut += len(chunk)
			}
			if end || err == io.EOF {
				n++
				cur.num = n
				if !fn(cur) {
					return n, nil
				}
				cur = line{text: cur.text[:0]}
				if n%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return n, err
					}
				}
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return n, nil
		default:
			return n, err
		}
	}
}
