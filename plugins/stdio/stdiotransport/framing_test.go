package stdiotransport

import "testing"

func TestValidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok ☃", "ok ☃"},
		{"\x83\x98 cut rune", " cut rune"},
		{"bad \xff byte", "bad ? byte"},
	}
	for _, tt := range tests {
		if got := validUTF8(tt.in); got != tt.want {
			t.Errorf("validUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
