package deploy_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/plughost/plughost/config"
)

// manifests is every object of deploy/kubernetes, decoded strictly.
type manifests struct {
	deployments  []*appsv1.Deployment
	statefulSets []*appsv1.StatefulSet
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	budgets      []*policyv1.PodDisruptionBudget
}

// kinds maps apiVersion/kind to a new object of the official type.
var kinds = map[string]func(m *manifests) any{
	"apps/v1/Deployment": func(m *manifests) any { o := &appsv1.Deployment{}; m.deployments = append(m.deployments, o); return o },
	"apps/v1/StatefulSet": func(m *manifests) any {
		o := &appsv1.StatefulSet{}
		m.statefulSets = append(m.statefulSets, o)
		return o
	},
	"v1/Service":   func(m *manifests) any { o := &corev1.Service{}; m.services = append(m.services, o); return o },
	"v1/ConfigMap": func(m *manifests) any { o := &corev1.ConfigMap{}; m.configMaps = append(m.configMaps, o); return o },
	"policy/v1/PodDisruptionBudget": func(m *manifests) any {
		o := &policyv1.PodDisruptionBudget{}
		m.budgets = append(m.budgets, o)
		return o
	},
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// load decodes every document of every YAML file in deploy/kubernetes.
func load(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	m := &manifests{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSeparator.Split(string(raw), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var head metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s document %d: %v", f, i+1, err)
			}
			newObj, ok := kinds[head.APIVersion+"/"+head.Kind]
			if !ok {
				t.Fatalf("%s document %d: %s %s is not a kind this test knows; add it to kinds", f, i+1, head.APIVersion, head.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), newObj(m)); err != nil {
				t.Errorf("%s document %d (%s): %v", f, i+1, head.Kind, err)
			}
		}
	}
	return m
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// The manifests decode strictly into the Kubernetes API types and fit
// together: names, selectors, ports, volumes, Secrets, probes, and the
// plughost config they carry.
func TestKubernetesManifests(t *testing.T) {
	m := load(t)
	if len(m.deployments) != 1 || len(m.statefulSets) != 1 || len(m.configMaps) != 1 {
		t.Fatalf("want one Deployment, one StatefulSet (Redis) and one ConfigMap; got %d, %d, %d",
			len(m.deployments), len(m.statefulSets), len(m.configMaps))
	}
	var metas []metav1.ObjectMeta
	for _, d := range m.deployments {
		metas = append(metas, d.ObjectMeta)
		checkWorkload(t, "Deployment "+d.Name, d.Spec.Selector, d.Spec.Template, nil, m)
	}
	for _, s := range m.statefulSets {
		metas = append(metas, s.ObjectMeta)
		var claims []string
		for _, c := range s.Spec.VolumeClaimTemplates {
			claims = append(claims, c.Name)
		}
		checkWorkload(t, "StatefulSet "+s.Name, s.Spec.Selector, s.Spec.Template, claims, m)
		if findService(m, s.Spec.ServiceName) == nil {
			t.Errorf("StatefulSet %s: serviceName %q names no Service", s.Name, s.Spec.ServiceName)
		}
	}
	for _, s := range m.services {
		metas = append(metas, s.ObjectMeta)
		checkService(t, s, m)
	}
	for _, b := range m.budgets {
		metas = append(metas, b.ObjectMeta)
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || !slices.ContainsFunc(m.deployments, func(d *appsv1.Deployment) bool { return sel.Matches(labels.Set(d.Spec.Template.Labels)) }) {
			t.Errorf("PodDisruptionBudget %s selects no Deployment's pods (%v)", b.Name, err)
		}
	}
	for _, c := range m.configMaps {
		metas = append(metas, c.ObjectMeta)
	}
	for _, meta := range metas {
		if errs := validation.IsDNS1123Subdomain(meta.Name); len(errs) > 0 {
			t.Errorf("name %q: %v", meta.Name, errs)
		}
	}
	checkPlughost(t, m)
}

// checkWorkload checks that a workload's selector selects its own pods and
// that its pods' references resolve; claims are its volume claim templates.
func checkWorkload(t *testing.T, what string, selector *metav1.LabelSelector, tmpl corev1.PodTemplateSpec, claims []string, m *manifests) {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(tmpl.Labels)) {
		t.Errorf("%s: selector %v does not select its pod template's labels %v (%v)", what, selector, tmpl.Labels, err)
	}
	volumes := map[string]corev1.Volume{}
	for _, c := range claims {
		volumes[c] = corev1.Volume{Name: c}
	}
	for _, v := range tmpl.Spec.Volumes {
		volumes[v.Name] = v
		if v.ConfigMap != nil && findConfigMap(m, v.ConfigMap.Name) == nil {
			t.Errorf("%s: volume %s names ConfigMap %q, which is not in the manifests", what, v.Name, v.ConfigMap.Name)
		}
		if v.Secret != nil {
			for _, it := range v.Secret.Items {
				checkSecretKey(t, what, v.Secret.SecretName, it.Key)
			}
		}
	}
	for _, c := range append(slices.Clone(tmpl.Spec.InitContainers), tmpl.Spec.Containers...) {
		r := c.Resources
		if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
			t.Errorf("%s: container %s: resources %+v, want CPU and memory requests and a memory limit", what, c.Name, r)
		}
		for _, vm := range c.VolumeMounts {
			if _, ok := volumes[vm.Name]; !ok {
				t.Errorf("%s: container %s mounts volume %q, which the pod does not have", what, c.Name, vm.Name)
			}
		}
		defined := map[string]bool{}
		for _, e := range c.Env {
			for _, ref := range envRef.FindAllStringSubmatch(e.Value, -1) {
				if !defined[ref[1]] {
					t.Errorf("%s: container %s: %s uses $(%s) before it is defined", what, c.Name, e.Name, ref[1])
				}
			}
			defined[e.Name] = true
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				checkSecretKey(t, what, e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
			}
		}
		for _, a := range c.Args {
			for _, ref := range envRef.FindAllStringSubmatch(a, -1) {
				if !defined[ref[1]] {
					t.Errorf("%s: container %s: an argument uses $(%s), which is not defined", what, c.Name, ref[1])
				}
			}
		}
	}
	for _, c := range tmpl.Spec.Containers {
		for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if p == nil {
				t.Errorf("%s: container %s lacks a readiness or liveness probe", what, c.Name)
				continue
			}
			if port := probePort(p); port.StrVal != "" && !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == port.StrVal }) {
				t.Errorf("%s: container %s: a probe uses port %q, which the container does not name", what, c.Name, port.StrVal)
			}
		}
	}
}

func probePort(p *corev1.Probe) intstr.IntOrString {
	switch {
	case p.HTTPGet != nil:
		return p.HTTPGet.Port
	case p.TCPSocket != nil:
		return p.TCPSocket.Port
	}
	return intstr.IntOrString{}
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// secretKeys are the keys of the Secret the README tells users to create.
var secretKeys = map[string][]string{"plughost": {"token", "redis-password"}}

func checkSecretKey(t *testing.T, what, name, key string) {
	t.Helper()
	if !slices.Contains(secretKeys[name], key) {
		t.Errorf("%s uses key %q of Secret %q, which the README does not create (it creates %v)", what, key, name, secretKeys)
	}
}

func findService(m *manifests, name string) *corev1.Service {
	for _, s := range m.services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func findConfigMap(m *manifests, name string) *corev1.ConfigMap {
	for _, c := range m.configMaps {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// podsOf returns the pod templates of the workloads a Service selects.
func podsOf(s *corev1.Service, m *manifests) []corev1.PodTemplateSpec {
	var out []corev1.PodTemplateSpec
	templates := []corev1.PodTemplateSpec{}
	for _, d := range m.deployments {
		templates = append(templates, d.Spec.Template)
	}
	for _, st := range m.statefulSets {
		templates = append(templates, st.Spec.Template)
	}
	sel := labels.SelectorFromSet(s.Spec.Selector)
	for _, tmpl := range templates {
		if len(s.Spec.Selector) > 0 && sel.Matches(labels.Set(tmpl.Labels)) {
			out = append(out, tmpl)
		}
	}
	return out
}

// checkService checks that a Service selects pods and that each of its
// target ports is a port those pods' containers name.
func checkService(t *testing.T, s *corev1.Service, m *manifests) {
	t.Helper()
	pods := podsOf(s, m)
	if len(pods) == 0 {
		t.Errorf("Service %s selects no workload's pods (selector %v)", s.Name, s.Spec.Selector)
		return
	}
	for _, p := range s.Spec.Ports {
		for _, tmpl := range pods {
			found := false
			for _, c := range tmpl.Spec.Containers {
				for _, cp := range c.Ports {
					found = found || cp.Name == p.TargetPort.StrVal || (p.TargetPort.StrVal == "" && cp.ContainerPort == p.TargetPort.IntVal)
				}
			}
			if !found {
				t.Errorf("Service %s: port %s targets %s, which no container of its pods has", s.Name, p.Name, p.TargetPort.String())
			}
		}
	}
}

// checkPlughost checks the plughost Deployment against the config it
// runs: the ConfigMap (equal to deploy/plughost.json) is a valid plughost
// config once the Deployment's environment is applied, its store URL names
// the Redis Service, its listen port is the probed container port, its
// token file is where the init container puts the token.
func checkPlughost(t *testing.T, m *manifests) {
	t.Helper()
	d := m.deployments[0]
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("Deployment %s: replicas %v, want several (the point of a shared store)", d.Name, d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if r := c.ReadinessProbe; r == nil || r.HTTPGet == nil || r.HTTPGet.Path != "/readyz" {
		t.Errorf("plughost readiness probe: %+v, want GET /readyz", r)
	}
	if l := c.LivenessProbe; l == nil || l.HTTPGet == nil || l.HTTPGet.Path != "/healthz" {
		t.Errorf("plughost liveness probe: %+v, want GET /healthz", l)
	}
	// The config file: --config names a file of a mounted ConfigMap.
	i := slices.Index(c.Args, "--config")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("plughost args %v: no --config", c.Args)
	}
	cm, key := mountedConfigMap(t, pod, c, c.Args[i+1], m)
	want, err := os.ReadFile("plughost.json")
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, []byte(cm.Data[key]), want) {
		t.Errorf("ConfigMap %s key %s differs from deploy/plughost.json (compose uses that file): keep them equal", cm.Name, key)
	}
	environ := []string{"REDIS_PASSWORD=example-password"}
	for _, e := range c.Env {
		if strings.HasPrefix(e.Name, "PLUGHOST_") {
			environ = append(environ, e.Name+"="+envRef.ReplaceAllStringFunc(e.Value, func(ref string) string { return "example-password" }))
		}
	}
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "config.json"), UserData: []byte(cm.Data[key]),
		Environ: environ, SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Validate(config.ValidateOptions{}); !p.Empty() {
		t.Fatalf("the Deployment's plughost config is invalid: %v", p.All())
	}
	g := l.Config.MCP.Gateway
	if g.Store.Kind() != config.StoreRedis || !g.Auth {
		t.Errorf("gateway store %q, auth %v: want redis and auth on", g.Store.Kind(), g.Auth)
	}
	u, err := url.Parse(g.Store.URL.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	if pw, _ := u.User.Password(); pw != "example-password" {
		t.Errorf("the store URL the replicas use has password %q, want the Secret's (through $(REDIS_PASSWORD))", pw)
	}
	redis := findService(m, u.Hostname())
	if redis == nil || !slices.ContainsFunc(redis.Spec.Ports, func(p corev1.ServicePort) bool { return fmt.Sprint(p.Port) == u.Port() }) {
		t.Errorf("the store URL names %s, which is no Service port of the manifests", u.Host)
	}
	_, port, _ := net.SplitHostPort(g.Listen)
	if !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == "http" && fmt.Sprint(cp.ContainerPort) == port }) {
		t.Errorf("gateway listen %s: the container's http port is not %s", g.Listen, port)
	}
	if ip, _, _ := net.SplitHostPort(g.Listen); config.IsLoopback(ip) {
		t.Errorf("gateway listen %s: a Service cannot reach a loopback address", g.Listen)
	}
	checkRollout(t, d, c, g)
	// The token: the init container installs it where token_file says, 0600.
	init := pod.InitContainers[0]
	if n := len(init.Command); n < 2 || init.Command[n-1] != g.TokenFile || !slices.Contains(init.Command, "0600") {
		t.Errorf("init container %s: %v, want it to install the token at %s with mode 0600", init.Name, init.Command, g.TokenFile)
	}
	for _, v := range pod.Volumes {
		if v.Secret != nil && (v.Secret.DefaultMode == nil || *v.Secret.DefaultMode != 0o400) {
			t.Errorf("Secret volume %s: defaultMode %v, want 0400", v.Name, v.Secret.DefaultMode)
		}
	}
	readme, err := os.ReadFile("kubernetes/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, keys := range secretKeys {
		for _, k := range keys {
			if !bytes.Contains(readme, []byte("--from-literal="+k+"=")) || !bytes.Contains(readme, []byte("create secret generic "+name)) {
				t.Errorf("kubernetes/README.md does not create Secret %s with key %s", name, k)
			}
		}
	}
}

// checkRollout checks that a replica leaves a rollout without refusing a
// request: a preStop delay, then a drain (still serving, /readyz 503) at
// least as long as the readiness probe takes to notice, and a grace period
// longer than preStop, drain and shutdown together, so the kubelet's
// SIGKILL never cuts a call the shutdown would have let finish.
func checkRollout(t *testing.T, d *appsv1.Deployment, c corev1.Container, g config.Gateway) {
	t.Helper()
	var preStop time.Duration
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds <= 0 {
		t.Errorf("plughost container: lifecycle %+v, want a preStop sleep (time for the Service to stop sending)", c.Lifecycle)
	} else {
		preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	if g.Drain() <= 0 {
		t.Errorf("tools.mcp.gateway.drain_seconds %v: want a drain, so SIGTERM does not close the listener at once", g.DrainSeconds)
	}
	if r := c.ReadinessProbe; r != nil {
		period, failures := cmp.Or(r.PeriodSeconds, 10), cmp.Or(r.FailureThreshold, 3) // Kubernetes' defaults
		noticed := time.Duration(period*failures) * time.Second
		if preStop+g.Drain() < noticed {
			t.Errorf("preStop %v + drain %v is shorter than the %v the readiness probe takes to see /readyz 503", preStop, g.Drain(), noticed)
		}
	}
	grace := 30 * time.Second
	if p := d.Spec.Template.Spec.TerminationGracePeriodSeconds; p != nil {
		grace = time.Duration(*p) * time.Second
	}
	if need := preStop + g.Drain() + g.ShutdownTimeout(); grace <= need {
		t.Errorf("terminationGracePeriodSeconds %v: want more than preStop %v + drain_seconds %v + shutdown_seconds %v = %v",
			grace, preStop, g.Drain(), g.ShutdownTimeout(), need)
	}
}

// mountedConfigMap finds the ConfigMap and key that file is, in container c.
func mountedConfigMap(t *testing.T, pod corev1.PodSpec, c corev1.Container, file string, m *manifests) (*corev1.ConfigMap, string) {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		rest, ok := strings.CutPrefix(file, strings.TrimSuffix(vm.MountPath, "/")+"/")
		if !ok {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == vm.Name && v.ConfigMap != nil {
				cm := findConfigMap(m, v.ConfigMap.Name)
				if _, ok := cm.Data[rest]; cm != nil && ok {
					return cm, rest
				}
			}
		}
	}
	t.Fatalf("--config %s is no key of a ConfigMap mounted in container %s", file, c.Name)
	return nil, ""
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v in %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return gocmp.Equal(x, y)
}
