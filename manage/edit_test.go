package manage_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/catalog"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/manage"
)

// A masked secret sent back keeps the stored value; a removed key is
// removed; a mask with nothing stored behind it is refused.
func TestUpdateServerKeepsMasked(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{"gh":{"enabled":true,"command":"sh",`+
		`"env":{"TOKEN":"s3cret","OLD":"gone"},"extra_key":"x"}}}}}`)
	v, err := m.Version()
	if err != nil {
		t.Fatal(err)
	}
	upd := config.Server{Enabled: true, Command: "sh", Args: []string{"-c", "true"},
		Env: map[string]secret.String{"TOKEN": secret.Masked, "NEW": "n"}}
	if _, err := m.UpdateServer("gh", upd, manage.WriteOptions{IfVersion: v}); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	for _, want := range []string{`"TOKEN":"s3cret"`, `"NEW":"n"`, `"-c"`} {
		if !strings.Contains(got, want) {
			t.Errorf("file lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "OLD") || strings.Contains(got, "****") {
		t.Errorf("a removed key or the mask was written:\n%s", got)
	}
	var ce *manage.ConflictError
	if _, err := m.UpdateServer("gh", upd, manage.WriteOptions{IfVersion: v}); !errors.As(err, &ce) {
		t.Errorf("update with the old version: %v; want a conflict", err)
	}
	before := read(t, path)
	upd.Headers = map[string]secret.String{"Authorization": secret.Masked}
	var inv *manage.InvalidError
	if _, err := m.UpdateServer("gh", upd, manage.WriteOptions{}); !errors.As(err, &inv) ||
		inv.Problems[0].Path != "tools.mcp.servers.gh.headers.Authorization" {
		t.Errorf("a mask with nothing stored: %v", err)
	}
	var nf *manage.NotFoundError
	if _, err := m.UpdateServer("zz", upd, manage.WriteOptions{}); !errors.As(err, &nf) {
		t.Errorf("update of an unknown server: %v", err)
	}
	if read(t, path) != before {
		t.Error("a refused update was written")
	}
}

func TestSetEnabled(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"servers":{"a":{"enabled":true,"command":"sh","args":["x"]}}}}}`)
	if _, err := m.SetEnabled("a", false, manage.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); !strings.Contains(got, `"enabled":false`) || !strings.Contains(got, `"args":["x"]`) {
		t.Errorf("after disabling:\n%s", got)
	}
	var nf *manage.NotFoundError
	if _, err := m.SetEnabled("b", true, manage.WriteOptions{}); !errors.As(err, &nf) {
		t.Errorf("enable an unknown server: %v", err)
	}
}

// The discovery rule (at least one search tool) is the validator's, and a
// refused settings write leaves the file alone; null removes a key.
func TestUpdateSettings(t *testing.T) {
	m, path := newManager(t, `{"tools":{"mcp":{"enabled":true,"max_inline_text_chars":5000}}}`)
	if _, err := m.UpdateSettings(json.RawMessage(`{"discovery":{"enabled":true,"ttl":7},"max_inline_text_chars":null}`), manage.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := m.Load()
	if err != nil || !l.Config.MCP.Discovery.Enabled || l.Config.MCP.Discovery.TTL != 7 || l.Config.MCP.MaxInlineTextChars != 16384 {
		t.Fatalf("settings after the write: %+v, %d, %v", l.Config.MCP.Discovery, l.Config.MCP.MaxInlineTextChars, err)
	}
	s := manage.SettingsOf(l.Config)
	if !*s.Discovery.Enabled || *s.Discovery.TTL != 7 || !*s.Enabled || *s.MaxMessageMB != 64 {
		t.Errorf("SettingsOf: %+v", s.Discovery)
	}
	before := read(t, path)
	for patch, wantPath := range map[string]string{
		`{"discovery":{"use_bm25":false,"use_regex":false}}`: "tools.mcp.discovery.use_bm25",
		`{"max_message_mb":-1}`:                              "tools.mcp.max_message_mb",
		`{"discovery":{"enabled":false,"ttl":-1}}`:           "tools.mcp.discovery.ttl",
		`{"unknown":1}`:                                      "tools.mcp.unknown",
		`{"servers":{}}`:                                     "tools.mcp.servers",
		`[1]`:                                                "tools.mcp",
	} {
		_, err = m.UpdateSettings(json.RawMessage(patch), manage.WriteOptions{})
		var inv *manage.InvalidError
		if !errors.As(err, &inv) || len(inv.Problems) != 1 || inv.Problems[0].Path != wantPath {
			t.Errorf("%s: %v; want one problem at %s", patch, err, wantPath)
		}
	}
	if read(t, path) != before {
		t.Error("invalid settings were written")
	}
}

// Every embedded preset, installed with placeholder credentials and its
// default arguments (plus a value for each required one without a
// default), is a server entry the runtime's validator accepts.
func TestEveryPresetValid(t *testing.T) {
	c, err := catalog.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, "")
	for _, p := range c.Presets {
		in := catalog.Input{Credentials: map[string]string{}, Arguments: map[string]catalog.Value{}}
		for _, cr := range p.Credentials {
			in.Credentials[cr.Key] = "x-" + cr.Key
		}
		for _, a := range p.Arguments {
			if a.Required && a.Default == "" {
				in.Arguments[a.Key] = catalog.Value{"/tmp/" + a.Key}
			}
		}
		res, err := m.Install(p, "", in, manage.AddOptions{})
		if err != nil {
			t.Errorf("preset %s: %v", p.ID, err)
			continue
		}
		for _, w := range res.Warnings {
			if !strings.Contains(w, "is not found") {
				t.Errorf("preset %s: warning %s", p.ID, w)
			}
		}
	}
	l, err := m.Load()
	if err != nil || len(l.Config.MCP.Servers) != len(c.Presets) {
		t.Fatalf("after installing every preset: %v", err)
	}
	if p := l.Validate(config.ValidateOptions{}); !p.Empty() {
		t.Errorf("problems: %v", p.All())
	}
	// A missing credential is a problem at credentials.<key>; nothing is written.
	gh, _ := c.Find("github")
	var inv *manage.InvalidError
	if _, err := m.Install(gh, "gh2", catalog.Input{}, manage.AddOptions{}); !errors.As(err, &inv) || inv.Problems[0].Path != "credentials.Authorization" {
		t.Errorf("install without the token: %v", err)
	}
}

// A url shown with its password masked, an oauth client secret and a
// third-party key sent back masked keep their stored values.
func TestKeepMaskedURLAndOAuth(t *testing.T) {
	stored := config.Server{Enabled: true, URL: "https://user:pw-s3cret@example.com/mcp?api_key=k-s3cret",
		OAuth: &config.OAuth{ClientID: "id", ClientSecret: "cs-s3cret"}, Extra: map[string]secret.String{"blob": `"x-s3cret"`}}
	shown := stored
	shown.URL = secret.URL(stored.URL.String())
	shown.OAuth = &config.OAuth{ClientID: "id2", ClientSecret: secret.Masked}
	shown.Extra = map[string]secret.String{"blob": `"****"`}
	if !strings.Contains(shown.URL.Reveal(), "****") {
		t.Fatalf("the url is not masked: %s", shown.URL.Reveal())
	}
	got := manage.KeepMasked(shown, stored)
	if got.URL != stored.URL || got.OAuth.ClientSecret != "cs-s3cret" || got.OAuth.ClientID != "id2" ||
		got.Extra["blob"] != `"x-s3cret"` {
		t.Errorf("kept: url %s, oauth %+v, extra %v", got.URL.Reveal(), got.OAuth, got.Extra)
	}
	if shown.OAuth.ClientSecret != secret.Masked {
		t.Error("KeepMasked changed its argument's oauth block")
	}
	// A new url is taken as sent.
	shown.URL = "https://other.example/mcp"
	if got := manage.KeepMasked(shown, stored); got.URL != "https://other.example/mcp" {
		t.Errorf("a changed url: %s", got.URL.Reveal())
	}
}
