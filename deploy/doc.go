// Package deploy holds no Go code: deploy/ is plughost's deployment files —
// kubernetes/ (replicas sharing sessions in Redis, a Redis to try it with),
// compose.yaml for one machine, the Dockerfile they run — and this
// package's tests, which validate them offline: every Kubernetes object is
// decoded strictly into the official API types (k8s.io/api: an unknown or
// misspelled field, a wrong type or a duplicate key fails), the compose file
// is loaded and checked against the Compose specification's schema by
// compose-spec/compose-go, and the references between objects (selectors,
// ports, volumes, Secrets, the plughost config and its Redis URL) are
// checked to fit together. Every pod is checked against Pod Security
// "restricted" with the admission controller's own checks
// (k8s.io/pod-security-admission); nginx.conf with `nginx -t` where nginx
// is installed; the repository's .dockerignore with Docker's own pattern
// matcher (moby/patternmatcher).
//
// deploy/ is a module of its own (github.com/plughost/plughost/deploy,
// using the main module through a replace directive), so the heavy
// libraries these tests need stay out of the main module. `go test ./...`
// at the repository root does not enter it: run `cd deploy && go test
// ./...`, as `make test` does.
package deploy
