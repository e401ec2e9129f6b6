package main

import (
	"fmt"
	"io"
)

// printWarnings prints each warning on stderr.
func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}
