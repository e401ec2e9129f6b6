package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nginxTest checks a conf.d file with the real nginx (`nginx -t`), inside
// a main config of its own so that nothing of the machine's nginx is used.
// It skips, loudly, where nginx is not installed (`make testdeps` installs
// Debian's nginx-light).
func nginxTest(t *testing.T, confd string) error {
	t.Helper()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Skip("SKIP: nginx is not installed (apt-get install nginx-light, or make testdeps): deploy/nginx.conf is not checked by nginx itself")
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "main.conf")
	conf := "pid " + filepath.Join(dir, "nginx.pid") + ";\nerror_log stderr;\nevents {}\nhttp {\n" +
		"  access_log off;\n  client_body_temp_path " + filepath.Join(dir, "body") + ";\n  proxy_temp_path " + filepath.Join(dir, "proxy") + ";\n" +
		"  include " + confd + ";\n}\n"
	if err := os.WriteFile(main, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nginx, "-t", "-p", dir, "-c", main, "-e", "stderr").CombinedOutput()
	if err != nil {
		return &nginxError{err: err, out: string(out)}
	}
	return nil
}

type nginxError struct {
	err error
	out string
}

func (e *nginxError) Error() string { return e.err.Error() + ": " + e.out }

// nginx itself accepts deploy/nginx.conf (and refuses a broken one, so the
// check can fail).
func TestNginxConfigIsValid(t *testing.T) {
	abs, err := filepath.Abs("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	if err := nginxTest(t, abs); err != nil {
		t.Errorf("nginx -t on deploy/nginx.conf: %v", err)
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken.conf")
	if err := os.WriteFile(broken, []byte(strings.Replace(string(raw), "proxy_buffering off;", "proxy_bufering off;", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := nginxTest(t, broken); err == nil {
		t.Error("nginx -t accepted a config with an unknown directive: the check cannot fail")
	}
}

// deploy/nginx.conf re-resolves the replicas' name at run time, retries
// only what is safe to retry, and passes on the Host the client sent.
func TestNginxConfigRollouts(t *testing.T) {
	raw, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := stripComments(string(raw))
	for _, c := range []struct {
		what string
		re   string
	}{
		{"a resolver whose answers live at most 5 s (a new replica gets requests soon)", `(?m)^\s*resolver \S+ valid=[1-5]s\b`},
		{"a proxy_pass through a variable (re-resolved at run time, on any nginx version)", `(?m)^\s*proxy_pass http://\$\w+;`},
		{"the client's Host passed on (plughost admits its own pages by Origin = Host)", `(?m)^\s*proxy_set_header Host \$http_host;`},
		{"connection errors and timeouts retried on another replica", `(?m)^\s*proxy_next_upstream error timeout;`},
		{"a short connect timeout (a dead replica costs 2 s, not 60)", `(?m)^\s*proxy_connect_timeout [1-5]s;`},
		{"no buffering (event streams)", `(?m)^\s*proxy_buffering off;`},
	} {
		if !regexp.MustCompile(c.re).MatchString(conf) {
			t.Errorf("deploy/nginx.conf lacks %s (%s)", c.what, c.re)
		}
	}
	if strings.Contains(conf, "non_idempotent") {
		t.Error("deploy/nginx.conf retries non-idempotent requests: a POSTed tool call could run twice")
	}
}
