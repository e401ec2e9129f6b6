package main

import "testing"

// TestRun: a package that calls syscall.Kill is a type error for Windows
// (1) and, where it builds, its printf mistake a diagnostic (3).
func TestRun(t *testing.T) {
	t.Chdir("testdata/unixonly")
	t.Setenv("CGO_ENABLED", "0")
	for _, tc := range []struct {
		goos string
		want int
	}{
		{"windows", 1},
		{"linux", 3},
		{"darwin", 3},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			t.Setenv("GOOS", tc.goos)
			if got := newCrossvet().run(nil, []string{"./..."}); got != tc.want {
				t.Errorf("GOOS=%s crossvet ./...: exit %d, want %d", tc.goos, got, tc.want)
			}
		})
	}
}
