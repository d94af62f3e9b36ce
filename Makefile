# restls: see README.md. Every target works from a clean clone.
GO ?= go
BIN := bin/restls
PKGS := ./...

.PHONY: all build test check unit fuzz-smoke bench demo clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/restls

# The quick start: restls on the shipped example configuration.
demo: build
	./$(BIN) services --config-root testdata/config

# What CI runs: static checks, unit and integration tests, a short run of
# every fuzz target.
test: check unit fuzz-smoke

check:
	@out=$$(git ls-files -co --exclude-standard '*.go' | while read -r f; do [ -f "$$f" ] && echo "$$f"; done | xargs -r gofmt -l); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

unit:
	$(GO) test -count=1 $(PKGS)

# Each fuzz target for a few seconds; the seed corpus also runs in `unit`.
FUZZTIME ?= 5s
fuzz-smoke:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin
