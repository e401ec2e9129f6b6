package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestMaskURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://user:pw@host:8080/mcp?api_key=abc&page=2#frag", "http://user:****@host:8080/mcp?api_key=****&page=2#frag"},
		{"https://ghp_token@github.com/x", "https://****@github.com/x"},
		{"https://h/p?access_token=t1&X-Amz-Signature=s&X-Amz-Credential=c&region=eu", "https://h/p?access_token=****&X-Amz-Signature=****&X-Amz-Credential=****&region=eu"},
		{"https://h/cb?code=xyz&state=1", "https://h/cb?code=****&state=1"},
		{"https://h/cb#access_token=xyz&token_type=bearer", "https://h/cb#access_token=****&token_type=****"},
		{"https://h/p?api%5Fkey=abc", "https://h/p?api%5Fkey=****"},
		{"https://h/p?key=", "https://h/p?key="},
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://h/a@b?x=1", "https://h/a@b?x=1"}, // '@' in the path is no userinfo
		{"not a url", "not a url"},
		{"", ""},
	} {
		if got := MaskURL(tc.in); got != tc.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskURLsInText(t *testing.T) {
	in := `Post "http://u:pw@127.0.0.1:1/mcp?token=t0k": dial tcp: refused; see https://docs.example/x?page=1.`
	want := `Post "http://u:****@127.0.0.1:1/mcp?token=****": dial tcp: refused; see https://docs.example/x?page=1.`
	if got := MaskURLs(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "X-Api-Key": true, "GITHUB_PERSONAL_ACCESS_TOKEN": true, "Authorization": true,
		"client_secret": true, "DB_PASSWORD": true, "sig": true, "code": true, "session_id": true,
		"page": false, "region": false, "PATH": false, "barcode": false, "state": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestMasker(t *testing.T) {
	m := NewMasker()
	m.Add("OPENAI_API_KEY", "sk-live-1234")
	m.Add("REGION", "eu-west-1-long")
	m.Add("LOG_LEVEL", "info")    // short, not secret-named: left alone in free text
	m.Add("DB_PASSWORD", "pw9")   // short but secret-named: masked
	m.AddHeader("Bearer tok-abc") // whole, and the token alone
	m.AddURL("http://user:hunter2@h/mcp?api_key=q%2Fsecret&page=7")
	for in, want := range map[string]string{
		"key sk-live-1234 in eu-west-1-long at info": "key **** in **** at info",
		"password pw9; header Bearer tok-abc":        "password ****; header ****",
		"token tok-abc alone":                        "token **** alone",
		"echoed hunter2 and q/secret and q%2Fsecret": "echoed **** and **** and ****",
		"page 7 stays":                      "page 7 stays",
		"url http://other:pass@x/?token=zz": "url http://other:****@x/?token=****",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	var nilMasker *Masker
	if got := nilMasker.Mask("http://a:b@h"); got != "http://a:****@h" {
		t.Errorf("nil masker: %q", got)
	}
}

func TestMaskerError(t *testing.T) {
	m := NewMasker()
	m.Add("TOKEN", "s3cr3t-value")
	base := fmt.Errorf("server said s3cr3t-value: %w", fs.ErrNotExist)
	err := m.Error(base)
	if strings.Contains(err.Error(), "s3cr3t") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("masked error %q lost its chain or kept the secret", err)
	}
	plain := errors.New("nothing here")
	if m.Error(plain) != plain || m.Error(nil) != nil {
		t.Errorf("an error with nothing to mask must come back as it was")
	}
}

func TestMaskerLogger(t *testing.T) {
	m := NewMasker()
	m.Add("API_TOKEN", "tok-0815-secret")
	var buf bytes.Buffer
	base := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Trace, DisableTime: true})
	l := m.Logger(base).Named("plugin").With("env", "API_TOKEN=tok-0815-secret")
	l.Info("started with tok-0815-secret", "error", errors.New("bad tok-0815-secret"), "n", 3,
		"list", []string{"tok-0815-secret"}, "url", URL("http://u:pw@h/"), "fmt", hclog.Fmt("%s!", "tok-0815-secret"),
		"any", struct{ V string }{"tok-0815-secret"})
	l.StandardLogger(nil).Print("std tok-0815-secret")
	out := buf.String()
	if strings.Contains(out, "tok-0815") || strings.Contains(out, ":pw@") {
		t.Errorf("log shows a secret:\n%s", out)
	}
	for _, want := range []string{"started with ****", "error=\"bad ****\"", "n=3", `list=["****"]`, `url="http://u:****@h/"`, `fmt="****!"`, "std ****", `env="API_TOKEN=****"`, `any="{V:****}"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestURLMasksItself(t *testing.T) {
	u := URL("https://u:pw@h/mcp?token=abc")
	const masked = "https://u:****@h/mcp?token=****"
	for _, got := range []string{u.String(), fmt.Sprint(u), fmt.Sprintf("%v|%s", u, u), fmt.Sprintf("%+v", struct{ U URL }{u})} {
		if strings.Contains(got, "pw@") || strings.Contains(got, "abc") {
			t.Errorf("shown unmasked: %q", got)
		}
	}
	b, _ := json.Marshal(map[string]URL{"url": u})
	if string(b) != `{"url":"`+masked+`"}` {
		t.Errorf("JSON: %s", b)
	}
	var back URL
	if err := json.Unmarshal([]byte(`"https://u:pw@h/"`), &back); err != nil || back.Reveal() != "https://u:pw@h/" {
		t.Errorf("unmarshal: %q %v", back.Reveal(), err)
	}
}

// A config of thousands of servers registers thousands of values: adding
// them costs memory linear in their number, and the first Mask after
// masks every one. Before, every Add rebuilt the replacer of all values so
// far — 40,000 servers took minutes and hundreds of MB at a reload.
func TestMaskerManyValuesCostLinearMemory(t *testing.T) {
	const n = 10_000
	m := NewMasker()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		m.Add("API_KEY", fmt.Sprintf("secret-value-%06d-abcdef", i))
	}
	text := m.Mask("a secret-value-000042-abcdef and a secret-value-009999-abcdef")
	runtime.ReadMemStats(&after)
	if want := "a **** and a ****"; text != want {
		t.Errorf("Mask = %q; want %q", text, want)
	}
	if mb := float64(after.TotalAlloc-before.TotalAlloc) / 1e6; mb > 64 {
		t.Errorf("adding %d values and masking once allocated %.0f MB; want at most 64 (linear in the values)", n, mb)
	}
	m.Add("API_KEY", "secret-value-added-later-abcdef")
	if got := m.Mask("x secret-value-added-later-abcdef"); got != "x ****" {
		t.Errorf("a value added after a Mask is not masked: %q", got)
	}
}

// JSON masks inside every string of a JSON value, keys too, decoding
// escapes first, and keeps everything else — order, numbers, spacing,
// unchanged strings' escapes — byte for byte.
func TestMaskerJSON(t *testing.T) {
	m := NewMasker()
	m.Add("API_TOKEN", "tok-1234567")
	m.Add("QUOTE", `he said "x</y>"`)
	for _, tc := range []struct{ in, want string }{
		{`{"env":"API_TOKEN=tok-1234567","n":12345678901234567890, "list":[ "tok-1234567" ,1.50]}`,
			`{"env":"API_TOKEN=****","n":12345678901234567890, "list":[ "****" ,1.50]}`},
		{`{"tok-1234567":true}`, `{"****":true}`},
		{`"escaped \u0074ok-1234567 and \"q\" kept"`, `"escaped **** and \"q\" kept"`},
		{`{"a":"he said \"x<\/y>\"","b":"\u003c"}`, `{"a":"****","b":"\u003c"}`},
		{`{"url":"https://h/p?api_key=abc&page=2"}`, `{"url":"https://h/p?api_key=****&page=2"}`},
		{`{"b":"no secret \u00e9 \\ \/"}`, `{"b":"no secret \u00e9 \\ \/"}`},
		{`null`, `null`},
		{``, ``},
		{`["unterminated tok-1234567`, `["unterminated ****`},
	} {
		got := string(m.JSON([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
		if tc.in != "" && json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
			t.Errorf("JSON(%s) = %s: no longer JSON", tc.in, got)
		}
	}
	in := []byte(`{"x":"nothing to mask"}`)
	if got := m.JSON(in); &got[0] != &in[0] {
		t.Error("JSON copied a value it did not change")
	}
	var nilMasker *Masker
	if got := string(nilMasker.JSON([]byte(`{"u":"http://u:pw@h/"}`))); got != `{"u":"http://u:****@h/"}` {
		t.Errorf("a nil Masker masks URLs only: %s", got)
	}
}

// Whatever the input, JSON keeps JSON valid and leaves no registered value
// in any string of it.
func FuzzMaskerJSON(f *testing.F) {
	for _, seed := range []string{`{"env":"K=tok-1234567"}`, `["tok-1234567",1,null,{"tok-1234567":"\u0074ok-1234567"}]`, `"a\"b"`, `[""]`, `{}`} {
		f.Add(seed)
	}
	m := NewMasker()
	m.Add("API_TOKEN", "tok-1234567")
	f.Fuzz(func(t *testing.T, in string) {
		out := m.JSON([]byte(in))
		if !json.Valid([]byte(in)) {
			return
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("JSON(%s) = %s: %v", in, out, err)
		}
		all, _ := json.Marshal(v)
		if strings.Contains(string(all), "tok-1234567") {
			t.Fatalf("JSON(%s) = %s still holds the secret", in, out)
		}
	})
}
