package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/lib/secret"
)

func TestFileJSON(t *testing.T) {
	no, call, msg, res := false, 90.0, 16, 512
	s := Server{
		MaxMessageMBOverride: &msg, MaxResultMBOverride: &res,
		Enabled: true, DeferredOverride: &no, Type: "custom", Command: "srv", Args: []string{"-x"},
		Env: map[string]secret.String{"TOKEN": "s3cret"}, URL: "https://u:pw-1@e.example/mcp",
		OAuth:            &OAuth{ClientID: "cid", ClientSecret: "cs-1", Scopes: []string{"a"}},
		Headers:          map[string]secret.String{"Authorization": "Bearer abc"},
		TimeoutOverrides: TimeoutOverrides{Call: &call},
		Extra:            map[string]secret.String{"zone": `"eu"`, "api_key": `"k-1"`},
	}
	b, err := s.FileJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"enabled":true,"deferred":false,"type":"custom","command":"srv","args":["-x"],"env":{"TOKEN":"s3cret"},` +
		`"url":"https://u:pw-1@e.example/mcp","headers":{"Authorization":"Bearer abc"},"oauth":{"client_id":"cid","client_secret":"cs-1","scopes":["a"]},` +
		`"timeouts":{"call_seconds":90},"max_message_mb":16,"max_result_mb":512,"api_key":"k-1","zone":"eu"}`
	if string(b) != want {
		t.Errorf("FileJSON =\n%s\nwant\n%s", b, want)
	}
	var back Server
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("FileJSON does not decode back to the server (-want +got):\n%s", diff)
	}
	masked, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"s3cret", "Bearer abc", "k-1", "eu", "pw-1", "cs-1"} {
		if strings.Contains(string(masked), leak) {
			t.Errorf("json.Marshal of a Server shows %q: %s", leak, masked)
		}
	}
	if !strings.Contains(string(masked), `"api_key":"****"`) {
		t.Errorf("json.Marshal of a Server hides that it has an extra key: %s", masked)
	}
}

func TestFileJSONMinimal(t *testing.T) {
	b, err := Server{Command: "a&b<c>"}.FileJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"enabled":false,"command":"a&b<c>"}` {
		t.Errorf("FileJSON = %s; empty keys must be left out, enabled always written", b)
	}
	if _, err := (Server{Extra: map[string]secret.String{"k": "not json"}}).FileJSON(); err == nil {
		t.Error("FileJSON accepted an Extra value that is not JSON")
	}
}
