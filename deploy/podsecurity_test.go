package deploy_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// Every pod of the manifests meets the Pod Security Standards' "restricted"
// level, as the Pod Security admission controller decides it: the checks
// are the controller's own (k8s.io/pod-security-admission), at the latest
// version of the standard, over every container, init containers included.
func TestPodSecurityRestricted(t *testing.T) {
	m := load(t)
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	restricted := api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}
	pods := map[string]corev1.PodTemplateSpec{}
	for _, d := range m.deployments {
		pods["Deployment "+d.Name] = d.Spec.Template
	}
	for _, s := range m.statefulSets {
		pods["StatefulSet "+s.Name] = s.Spec.Template
	}
	if len(pods) == 0 {
		t.Fatal("no pod templates in deploy/kubernetes")
	}
	for what, tmpl := range pods {
		res := policy.AggregateCheckResults(eval.EvaluatePod(restricted, &tmpl.ObjectMeta, &tmpl.Spec))
		if !res.Allowed {
			t.Errorf("%s violates Pod Security %q: %s", what, restricted.String(), res.ForbiddenDetail())
		}
	}
}

// The evaluator refuses what "restricted" forbids, so the test above can
// fail: a pod whose container may escalate privileges and keeps its
// capabilities is refused.
func TestPodSecurityRestrictedRefuses(t *testing.T) {
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	restricted := api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}
	tmpl := load(t).deployments[0].Spec.Template
	tmpl.Spec.InitContainers[0].SecurityContext = nil
	res := policy.AggregateCheckResults(eval.EvaluatePod(restricted, &tmpl.ObjectMeta, &tmpl.Spec))
	if res.Allowed {
		t.Error("an init container without a securityContext passed the restricted checks")
	}
}
