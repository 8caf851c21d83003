# hark: two commands do everything on a fresh Debian machine.
#   make run   starts harkd on 127.0.0.1:8700 (the terminal client arrives later)
#   make test  vet, gofmt check and all tests with the race detector
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
DATA ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/hark/harkd

.PHONY: run test deps build bench vet fmt-check

deps:
	@scripts/install-deps.sh
	@$(GO) mod download

build: deps
	@mkdir -p bin
	$(GO) build -o bin/ ./cmd/...

run: build
	bin/harkd serve --addr 127.0.0.1:8700 --data "$(DATA)" --print-keys

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: deps vet fmt-check
	$(GO) test -race -timeout 30m ./...

bench: deps
	@scripts/bench.sh
