package resourceuri

import (
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	cases := []struct{ server, uri string }{
		{"ref", "test://static-text"},
		{"my.server", "file:///tmp/a b?x=1#frag"},
		{"a/b:c@d", "demo://resource/dynamic/text/{index}"},
		{"ünï", ""},
		{"x", "plughost://y/z"},
	}
	for _, c := range cases {
		enc := Encode(c.server, c.uri)
		if !strings.HasPrefix(enc, Prefix) {
			t.Errorf("Encode(%q, %q) = %q; want the %s prefix", c.server, c.uri, enc, Prefix)
		}
		server, uri, ok := Decode(enc)
		if !ok || server != c.server || uri != c.uri {
			t.Errorf("Decode(Encode(%q, %q)) = %q, %q, %v", c.server, c.uri, server, uri, ok)
		}
	}
	if enc := Encode("a/b:c", "x://y"); enc != "plughost://a%2Fb%3Ac/x://y" {
		t.Errorf("Encode = %q; the server part must hide / and :", enc)
	}
}

func TestDecodeRefusesOtherURIs(t *testing.T) {
	for _, s := range []string{"test://x", "plughost://", "plughost://srv", "plughost:///x", "plughost://%zz/x"} {
		if server, uri, ok := Decode(s); ok {
			t.Errorf("Decode(%q) = %q, %q; want not ok", s, server, uri)
		}
	}
}

func TestExpandedEncodedTemplateDecodesToTheServersExpansion(t *testing.T) {
	tmpl := Encode("ref", "test://template/{id}/data")
	expanded := strings.Replace(tmpl, "{id}", "123", 1) // what a client does
	server, uri, ok := Decode(expanded)
	if !ok || server != "ref" || uri != "test://template/123/data" {
		t.Errorf("Decode(%q) = %q, %q, %v", expanded, server, uri, ok)
	}
}

func TestTemplateMatch(t *testing.T) {
	cases := []struct {
		tmpl string
		yes  []string
		no   []string
	}{
		{"test://template/{id}/data", []string{"test://template/123/data", "test://template//data"}, []string{"test://template/1/2/data", "test://template/1/datax", "xtest://template/1/data"}},
		{"file://{+path}", []string{"file:///a/b/c", "file://"}, []string{"http://a"}},
		{"demo://r{/seg}", []string{"demo://r/a/b", "demo://r"}, []string{"demo://rx"}},
		{"s://q{?a,b}", []string{"s://q?a=1&b=2", "s://q"}, []string{"s://q/x"}},
		{"a.b://c", []string{"a.b://c"}, []string{"aXb://c"}},
	}
	for _, c := range cases {
		tm, err := CompileTemplate(c.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		for _, u := range c.yes {
			if !tm.Match(u) {
				t.Errorf("%s should match %s", c.tmpl, u)
			}
		}
		for _, u := range c.no {
			if tm.Match(u) {
				t.Errorf("%s should not match %s", c.tmpl, u)
			}
		}
	}
	for _, bad := range []string{"x://{", "x://{}"} {
		if _, err := CompileTemplate(bad); err == nil {
			t.Errorf("CompileTemplate(%q) should fail", bad)
		}
	}
}
