# restls: see README.md. Every target works from a clean clone.
GO ?= go
BIN := bin/restls
PKGS := ./...

.PHONY: all build dist dist-test dist-fresh-clone test skipped-report check unit fuzz-smoke bench bench-oxlint bench-base pgo demo clean vscode-test vscode-package e2e-vscode designer designer-check e2e-web e2e-mcp e2e-dap designer-typecheck

all: build

# The binary says which commit it was built from, and a version like git
# describe's (v0.1.0-dev.<commit> while no release tag exists: a semver
# pre-release, which the VS Code extension's version check accepts):
# scripts/version.sh, which make dist stamps too (VERSION=v0.1.0 make dist
# for a release from an untagged commit). Empty outside a git checkout:
# restls then says "dev".
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty)
VERSION ?= $(shell scripts/version.sh)
LDFLAGS := $(if $(COMMIT),-X main.commit=$(COMMIT)) $(if $(VERSION),-X main.version=$(VERSION))

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/restls

# The quick start: restls on the shipped example configuration.
demo: build
	./$(BIN) services --config-root testdata/config
	./$(BIN) run --mock testdata/mocks/customer-summary.yaml testdata/scripts/customer-summary.js

# The tests: static checks, unit and integration tests, and the VS Code
# extension's tests. The short run of every fuzz target is its own target,
# fuzz-smoke, which .ci/run runs after this (README.md, "Development",
# gives the times of both).
#
# Tests that need a tool this machine lacks (Neovim, Emacs with eglot)
# skip outside CI; they write why into $(SKIP_LOG), and the last step
# prints it, so a pass without them says so.
test: check unit vscode-test
	@$(MAKE) -s --no-print-directory skipped-report

SKIP_LOG ?= $(CURDIR)/out/skipped-tests.txt

skipped-report:
	@if [ -s "$(SKIP_LOG)" ]; then \
	  echo "make test passed, but these editor tests were skipped (README.md, \"Quick start\"):"; \
	  sed 's/^/  /' "$(SKIP_LOG)"; \
	else echo "make test: every editor test ran (none skipped)"; fi

# check vets (tests included) for these platforms besides the host's: one
# each of linux, windows and darwin, which make dist ships. Nothing in the
# module is specific to an architecture, so the other two dist targets add
# nothing. About 1-4 s each with a warm cache (docs/decisions.md).
CROSS_VET ?= linux/amd64 windows/amd64 darwin/arm64

check: designer-typecheck
	@out=$$(git ls-files -co --exclude-standard '*.go' | while read -r f; do [ -f "$$f" ] && echo "$$f"; done | xargs -r gofmt -l); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@# Tests and code must compile for every platform make dist ships:
	@# unix-only tests live in _unix_test.go files (docs/decisions.md).
	@set -e; host=$$($(GO) env GOOS)/$$($(GO) env GOARCH); for p in $(CROSS_VET); do \
	  [ "$$p" != "$$host" ] || continue; echo "GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet $(PKGS)"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet $(PKGS); \
	done
	$(GO) tool staticcheck $(PKGS)
	$(GO) test -count=1 ./internal/layering
	@# deadcode exits 0 with findings, so any output fails. Without -test:
	@# code only tests reach is dead too (move it into a _test.go file).
	@# Test-helper packages (internal/*test, which the layering test keeps
	@# out of non-test files) are reached only from tests, so not checked.
	@echo "$(GO) tool deadcode $(PKGS)"; out=$$($(GO) tool deadcode $(PKGS)) || exit 1; \
	  out=$$(printf '%s\n' "$$out" | grep -v '^internal/[^/]*test/' || true); \
	  if [ -n "$$out" ]; then echo "deadcode: unreachable from cmd/restls (delete it, or move what only tests use into a _test.go file):"; echo "$$out"; exit 1; fi

unit:
	@mkdir -p $(dir $(SKIP_LOG)) && rm -f $(SKIP_LOG)
	RESTLS_SKIP_LOG=$(SKIP_LOG) $(GO) test -count=1 $(PKGS)

# Each fuzz target for a fixed number of executions (scripts/fuzz-smoke.sh:
# "fuzz target N of M: PKG NAME" and one line per target, the fuzzer's
# output only for a failure; exit 1 on any finding, after running the
# rest); the seed corpus also runs in `unit`. A count, not a duration:
# with a duration, Go 1.26's fuzz coordinator can fail a target with a
# bare "context deadline exceeded" at the deadline (golang/go#75804, fixed
# in Go 1.27); a count has no deadline.
#
# A new input the fuzzer finds is minimised for up to a minute by default;
# with the deep and large seeds the targets carry, that stalled a smoke run
# for most of its time. Ten minimisation steps keep the finding and its
# file (testdata/fuzz) without the stall. Longer fuzzing is `go test
# -fuzz` by hand (docs/decisions.md, Tests). FUZZ=REGEXP runs the targets
# whose "./PKG NAME" matches.
FUZZTIME ?= 10000x
FUZZMINIMIZE ?= 10x
fuzz-smoke:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) FUZZ='$(FUZZ)' scripts/fuzz-smoke.sh $(PKGS)

# Every benchmark of the module. Those that compare restls with another
# tool report the ratio themselves (BenchmarkScriptVsPlainGET: a dry run's
# call against bare net/http, docs/runtime.md; BenchmarkCheckVsOxlint:
# restls check against oxlint, which bench-oxlint installs first;
# BenchmarkCheckVsBase: restls check against an older build, which
# bench-base builds first; BenchmarkFlowCompletionServerSide: completion of
# answer types in a 10,000-line script, issue 38's p99 under 1 ms;
# BenchmarkFirstBreakpoint: restls dap's first stop after launch, issue
# 35's 300 ms).
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# restls check and oxlint with no-undef side by side on 10,000 generated
# scripts, oxlint installed from npm under a temporary directory
# (scripts/bench-check-vs-oxlint.sh; docs/ci.md, "How fast"). BENCHTIME
# and COUNT are go test's -benchtime and -count.
bench-oxlint:
	GO=$(GO) BENCHTIME='$(BENCHTIME)' COUNT='$(COUNT)' scripts/bench-check-vs-oxlint.sh

# The profile make dist builds restls with (-pgo): restls check of make
# bench-oxlint's corpus in process (BenchmarkCheckCorpusInProcess), 25
# checks so that writing the corpus is a sixth of the samples, not a
# third as with 6. Not default.pgo: go build ./... and the tests of cmd/restls would then
# compile every dependency a second time (docs/decisions.md).
pgo:
	$(GO) test -run '^$$' -bench 'CheckCorpusInProcess$$' -benchtime 25x -cpuprofile cmd/restls/restls.pgo ./cmd/restls

# restls check as built from this tree and from BASE (default 3c62799,
# before issue 38's answer types) run for run on 10,000 generated scripts,
# with and without descriptions (scripts/bench-check-vs-base.sh; issue 38's
# bound: cpu-ratio at most 1.2). BENCHTIME and COUNT as above.
bench-base:
	GO=$(GO) BASE='$(BASE)' BENCHTIME='$(BENCHTIME)' COUNT='$(COUNT)' scripts/bench-check-vs-base.sh

# VS Code extension (vscode-extension/, docs/vscode.md): type check, bundle
# and node tests, one of which drives the real bin/restls through
# vscode-languageclient.
vscode-test: build vscode-extension/node_modules/.package-lock.json
	cd vscode-extension && npm test

# The installable extension: vscode-extension/restls-<version>.vsix, the
# universal one, named as make dist names it (v0.1.0 for package.json's
# 0.1.0).
vscode-package: vscode-extension/node_modules/.package-lock.json
	cd vscode-extension && npm run package

# npm ci again only when the lock file changed (npm writes this file).
vscode-extension/node_modules/.package-lock.json: vscode-extension/package-lock.json
	cd vscode-extension && npm ci --no-audit --no-fund

# The extension in real VS Code: code-server from npm with the .vsix
# installed, driven by Playwright with Debian's chromium; screenshots in
# out/e2e-vscode/. Needs the Debian packages listed in
# vscode-extension/e2e/install-code-server.sh and chromium.
e2e-vscode: build vscode-package
	vscode-extension/e2e/install-code-server.sh out/code-server
	cd vscode-extension && node e2e/run.mjs

# The designer page (web/, docs/http.md): web/static/designer.js is built
# from web/designer/src with esbuild and committed, so a plain `go build`
# serves it; designer-check fails when the committed bundle is stale.
designer: web/designer/node_modules
	cd web/designer && node build.mjs

designer-check: web/designer/node_modules
	cd web/designer && node build.mjs --check

# The module's source is type-checked strictly (make check runs this):
# src/preview/ is TypeScript, the rest JavaScript checked through its JSDoc
# (tsconfig.src.json); index.d.ts, and the designer page and the embedding
# example against it (tsconfig.json).
designer-typecheck: web/designer/node_modules
	cd web/designer && ./node_modules/.bin/tsc -p tsconfig.src.json && ./node_modules/.bin/tsc -p tsconfig.json

# --ignore-scripts: no dependency here needs its install script (esbuild
# finds its platform binary without it). Not in web/designer/.npmrc, where
# it would also skip npm pack's prepack, which builds what is packed.
web/designer/node_modules: web/designer/package-lock.json
	cd web/designer && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# The designer in a real browser: bin/restls serve --http on loopback,
# Debian's chromium driven by playwright-core, the page and a host page
# embedding the npm-packed module; screenshots in out/e2e-web/.
# CI runs it after `make test` (.ci/run installs chromium).
e2e-web: build designer-check
	mkdir -p out/e2e-web
	cd web/designer && RESTLS_BIN=$(CURDIR)/$(BIN) node --test e2e/

# restls mcp and /mcp driven by the official TypeScript SDK's client
# (npm @modelcontextprotocol/sdk), as an agent drives them (docs/mcp.md);
# the Go SDK's client drives the same in internal/e2e.
e2e-mcp: build mcp/e2e-ts/node_modules
	cd mcp/e2e-ts && RESTLS_BIN=$(CURDIR)/$(BIN) node --test

mcp/e2e-ts/node_modules: mcp/e2e-ts/package-lock.json
	cd mcp/e2e-ts && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# restls dap driven by @vscode/debugadapter-testsupport's DebugClient
# (npm), the client VS Code's own debug adapters are tested with
# (docs/debugging.md); the go-dap codec drives the same in internal/e2e.
e2e-dap: build dap/e2e-ts/node_modules
	cd dap/e2e-ts && RESTLS_BIN=$(CURDIR)/$(BIN) node --test

dap/e2e-ts/node_modules: dap/e2e-ts/package-lock.json
	cd dap/e2e-ts && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# The downloads of a release in dist/ (docs/vscode.md, "Packaging"):
# restls archives for linux-x64, linux-arm64, darwin-x64, darwin-arm64 and
# win32-x64 (CGO_ENABLED=0 -trimpath, version and commit stamped), one
# .vsix per target holding its binary, a universal .vsix and SHA256SUMS.
# TARGETS="linux-x64" builds a subset. dist-test checks what it built.
dist: vscode-extension/node_modules/.package-lock.json
	GO=$(GO) scripts/dist.sh

dist-test:
	RESTLS_DIST_TEST=1 TARGETS="$(TARGETS)" $(GO) test -count=1 -run '^TestDist' ./internal/hygiene

# make dist and dist-test in a fresh clone of HEAD (no build output, no
# node_modules), as a release engineer starts: .ci/run runs this rather
# than make dist in a tree that make test has already built in. Commit
# first: the clone has only what is committed. TARGETS is passed on.
dist-fresh-clone:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  echo "git clone $(CURDIR) $$tmp/restls"; git clone -q "$(CURDIR)" "$$tmp/restls"; \
	  $(MAKE) -C "$$tmp/restls" dist dist-test GO="$(GO)" $(if $(TARGETS),TARGETS="$(TARGETS)")

clean:
	rm -rf bin dist

# Scripts in CI (docs/ci.md): lint the example repository of scripts, then
# run its tests against their fixtures, offline.
.PHONY: demo-ci
demo-ci: build
	./$(BIN) check testdata/ci
	./$(BIN) test -v testdata/ci
