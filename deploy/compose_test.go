package deploy_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/plughost/plughost/config"
)

// loadCompose loads deploy/compose.yaml with env as the environment,
// validating it against the Compose specification's schema.
func loadCompose(t *testing.T, env map[string]string) (*types.Project, error) {
	t.Helper()
	abs, err := filepath.Abs("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("plughost", true) })
}

// compose.yaml is a valid Compose file whose parts fit together: three
// plughost replicas with the shared config file and the store URL of the
// Redis service, behind nginx, which proxies to their listen port.
func TestCompose(t *testing.T) {
	if _, err := loadCompose(t, map[string]string{}); err == nil || !strings.Contains(err.Error(), "REDIS_PASSWORD") {
		t.Errorf("compose.yaml without REDIS_PASSWORD: %v, want an error naming it", err)
	}
	p, err := loadCompose(t, map[string]string{"REDIS_PASSWORD": "example-password"})
	if err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	ph, err := p.GetService("plughost")
	if err != nil {
		t.Fatal(err)
	}
	if ph.Deploy == nil || ph.Deploy.Replicas == nil || *ph.Deploy.Replicas < 2 {
		t.Errorf("plughost service: deploy %+v, want several replicas", ph.Deploy)
	}
	if ph.Build == nil || ph.Build.Dockerfile != "deploy/Dockerfile" {
		t.Errorf("plughost service: build %+v, want deploy/Dockerfile", ph.Build)
	}
	if _, err := os.Stat(filepath.Join(ph.Build.Context, ph.Build.Dockerfile)); err != nil {
		t.Errorf("plughost service: build context %s: %v", ph.Build.Context, err)
	}
	cfgFile := configFile(t, p, ph, "/etc/plughost/config.json")
	raw, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	var environ []string
	for k, v := range ph.Environment {
		if v != nil && strings.HasPrefix(k, "PLUGHOST_") {
			environ = append(environ, k+"="+*v)
		}
	}
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: raw, Environ: environ,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	if pr := l.Validate(config.ValidateOptions{}); !pr.Empty() {
		t.Fatalf("the compose plughost config is invalid: %v", pr.All())
	}
	g := l.Config.MCP.Gateway
	u, _ := url.Parse(g.Store.URL.Reveal())
	if pw, _ := u.User.Password(); g.Store.Kind() != config.StoreRedis || pw != "example-password" {
		t.Errorf("store %q with password %q, want redis with REDIS_PASSWORD", g.Store.Kind(), pw)
	}
	if _, err := p.GetService(u.Hostname()); err != nil {
		t.Errorf("the store URL names host %s, which is no service: %v", u.Hostname(), err)
	}
	if !strings.HasPrefix(g.TokenFile, "/run/plughost/") || !hasVolume(ph.Volumes, "/run/plughost") {
		t.Errorf("token file %s is not on the volume the replicas share", g.TokenFile)
	}
	need := g.Drain() + g.ShutdownTimeout()
	if ph.StopGracePeriod == nil || time.Duration(*ph.StopGracePeriod) <= need {
		t.Errorf("plughost service: stop_grace_period %v, want more than drain_seconds + shutdown_seconds (%v)", ph.StopGracePeriod, need)
	}
	lb, err := p.GetService("lb")
	if err != nil {
		t.Fatal(err)
	}
	nginx, err := os.ReadFile(configFile(t, p, lb, "/etc/nginx/conf.d/default.conf"))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(g.Listen, ":")
	if !regexp.MustCompile(`(?m)^\s*set \$plughost plughost:` + port + `;`).Match(nginx) {
		t.Errorf("nginx.conf does not proxy to plughost:%s (the gateway's listen port)", port)
	}
	if len(lb.Ports) != 1 || lb.Ports[0].HostIP != "127.0.0.1" {
		t.Errorf("lb ports %+v: want one, on 127.0.0.1 only", lb.Ports)
	}
}

// configFile returns the host file of the config a service mounts at target.
func configFile(t *testing.T, p *types.Project, s types.ServiceConfig, target string) string {
	t.Helper()
	for _, c := range s.Configs {
		if c.Target == target {
			if cfg, ok := p.Configs[c.Source]; ok && cfg.File != "" {
				return cfg.File
			}
		}
	}
	t.Fatalf("service %s mounts no config file at %s", s.Name, target)
	return ""
}

func hasVolume(vols []types.ServiceVolumeConfig, target string) bool {
	for _, v := range vols {
		if v.Target == target && v.Type == types.VolumeTypeVolume {
			return true
		}
	}
	return false
}
