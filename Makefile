# Prototyper: `make run` opens the app, `make install` puts `prototyper` on PATH, `make test`
# runs every test. They install what is missing first (Debian packages, the pinned ollama
# server into .tools/, npm packages from the lockfile) and skip what is already there.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

TOOLS        := $(CURDIR)/.tools/bin
WAILS        := $(TOOLS)/wails
OLLAMA       := $(TOOLS)/ollama
NFPM         := $(TOOLS)/nfpm
WAILS_VER    := v2.11.0
OLLAMA_VER   := v0.11.4
NFPM_VER     := v2.44.0
VERSION      ?= 0.2.0
ARCH         := $(shell go env GOARCH)
DEB          := build/bin/prototyper_$(VERSION)_$(ARCH).deb
TAGS         := webkit2_41
BIN          := build/bin/prototyper
DEPS_STAMP   := .tools/.deb-packages
NODE_STAMP   := frontend/node_modules/.package-lock.json

export PATH := $(TOOLS):$(shell go env GOPATH)/bin:$(PATH)
export GOFLAGS := -tags=$(TAGS)

.PHONY: wails mcp-test-servers run install uninstall test build package deps deps-deb vet test-go test-frontend test-contract test-desktop test-desktop-default test-desktop-pass1 test-desktop-pass2 test-desktop-large test-clean-clone test-package bench bench-all bench-stream moonshot clean go-packages


## run: install what is missing, build, open the app. The pinned ollama server is built only
## when no `ollama` is on PATH and none answers (with no Ollama running, the app starts one)
## (announced before the app's build starts, since it is the longer of the two)
run:
	@need=; if [ ! -x $(OLLAMA) ] && scripts/ollama-needed.sh; then need=1; \
		echo "make: this first run builds the app, then the Ollama server from source once (about 2 min on two free cores, longer on a busy machine; later runs reuse it)"; fi; \
		$(MAKE) --no-print-directory build && if [ -n "$$need" ]; then $(MAKE) --no-print-directory $(OLLAMA); fi
	@echo "make: opening the window (./$(BIN) $(ARGS))"
	@# WebKitGTK says on every start that it takes over a signal the Go runtime handles too
	@# (harmless: JSC_SIGNAL_FOR_GC); every other line of the app's stderr is kept
	@{ ./$(BIN) $(ARGS) 2>&1 1>&3 3>&- | awk '!/Overriding existing handler for signal/ { print; fflush() }' 1>&2; } 3>&1

## build: the production desktop binary, build/bin/prototyper, with the go command alone (no
## wails CLI); each step is skipped when what it makes is current, see scripts/build.sh
build: deps-deb
	@scripts/build.sh $(TAGS)

## install: `prototyper` on PATH, as a link in PREFIX/bin (~/.local/bin) to build/bin/prototyper
PREFIX ?= $(HOME)/.local
install: build
	@mkdir -p $(PREFIX)/bin
	@ln -sfn $(CURDIR)/$(BIN) $(PREFIX)/bin/prototyper
	@echo "make: installed $(PREFIX)/bin/prototyper (a link to $(CURDIR)/$(BIN)); remove it with make uninstall$(if $(filter-out $(HOME)/.local,$(PREFIX)), PREFIX=$(PREFIX))"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "make: $(PREFIX)/bin is not on your PATH: add it, e.g. echo 'export PATH=\"$(PREFIX)/bin:\$$PATH\"' >> ~/.bashrc";; esac

## uninstall: removes what make install put on PATH (the chats and settings stay; see README)
uninstall:
	@if [[ -L $(PREFIX)/bin/prototyper ]]; then rm $(PREFIX)/bin/prototyper && echo "make: removed $(PREFIX)/bin/prototyper"; else echo "make: no $(PREFIX)/bin/prototyper to remove"; fi

# node_modules come from the lockfile (scripts/npm-install.sh says how); scripts/build.sh installs
# them itself, while Go compiles
$(NODE_STAMP): frontend/package.json frontend/package-lock.json
	@echo "make: installing the frontend's npm packages from the lockfile"
	@scripts/npm-install.sh

deps: deps-deb $(NODE_STAMP)

deps-deb: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/install-deps.sh
	@scripts/install-deps.sh
	@mkdir -p $(@D) && touch $@

# The MCP servers the tests connect to: the reference server, pinned in tests/mcp.
MCP_STAMP := tests/mcp/node_modules/.package-lock.json
$(MCP_STAMP): tests/mcp/package.json tests/mcp/package-lock.json
	cd tests/mcp && npm install --no-audit --no-fund
	@touch $@

## mcp-test-servers: install the MCP servers the tests use (@modelcontextprotocol/server-everything)
mcp-test-servers: $(MCP_STAMP)

## wails: the pinned wails CLI in .tools/bin, for `wails dev` (the build does not use it)
wails: $(WAILS)
$(WAILS):
	@scripts/announce.sh "building the wails CLI $(WAILS_VER) into .tools/bin" 2 -- \
		env GOBIN=$(TOOLS) go install github.com/wailsapp/wails/v2/cmd/wails@$(WAILS_VER)

# stamped with its version, as Ollama's releases are: /api/version then says which it is
$(OLLAMA): | $(DEPS_STAMP)
	@scripts/announce.sh "building the Ollama server $(OLLAMA_VER) from source into .tools/bin, since none is installed or running" 2 -- \
		env GOBIN=$(TOOLS) go install -ldflags=-X=github.com/ollama/ollama/version.Version=$(OLLAMA_VER:v%=%) github.com/ollama/ollama@$(OLLAMA_VER)

# v2.44: later versions need modules that the Go module proxy does not serve
$(NFPM):
	GOBIN=$(TOOLS) go install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VER)

## package: a Debian package of the app (binary, desktop entry, icon), build/bin/prototyper_*.deb
package: build $(NFPM)
	VERSION=$(VERSION) ARCH=$(ARCH) $(NFPM) package --config build/linux/nfpm.yaml --packager deb --target $(DEB)

## test: every test of the project; non-zero on any failure
test: deps $(OLLAMA) build package mcp-test-servers
	$(MAKE) vet test-go test-frontend test-contract
	$(MAKE) test-desktop DESKTOP_BESIDE=test-clean-clone
	$(MAKE) test-package

# A fresh clone of the committed tree builds, vets and tests with bare go commands, before any
# frontend build and without the components (their tests skip and say why).
test-clean-clone:
	scripts/check-clean-clone.sh

# The module's Go packages: ./... without the Go code npm packages ship in frontend/node_modules
# (flatted's golang/ folder). go.mod's ignore directive would say it once for every go command,
# but the wails CLI cannot read a go.mod that has one.
GO_PKGS = $(shell go list ./... | grep -v /node_modules/)

## go-packages: the Go packages vet, test and bench cover
go-packages:
	@echo $(GO_PKGS)

vet:
	go vet $(GO_PKGS)

# PROTOTYPER_REQUIRE_COMPONENTS turns a missing component (ollama, Xvfb, the binary) into a failure.
test-go:
	PROTOTYPER_REQUIRE_COMPONENTS=1 PROTOTYPER_OLLAMA=$(OLLAMA) go test -race -timeout 30m -count=1 -skip 'Desktop|Package' $(GO_PKGS)

test-frontend: $(NODE_STAMP)
	cd frontend && npm run typecheck && npm run lint && npm test

# The window's contract with the Go side: its types match the Go types Wails generated (the
# build writes frontend/wailsjs), and every chat the Go scenarios leave in the store opens in
# the window's own store and chat view with each card in its right state.
CONTRACT_DIR := $(CURDIR)/tests/artifacts/contract
test-contract: $(NODE_STAMP)
	cd frontend && npm run check:contract -- --require
	rm -rf $(CONTRACT_DIR)
	PROTOTYPER_REQUIRE_COMPONENTS=1 PROTOTYPER_OLLAMA=$(OLLAMA) PROTOTYPER_CONTRACT_DIR=$(CONTRACT_DIR) \
		go test -count=1 -run 'TestContract' ./tests/
	cd frontend && PROTOTYPER_CONTRACT_DIR=$(CONTRACT_DIR) npx vitest run src/test/contract.test.tsx

# The window's tests run at the default size; those where layout can matter (marked
# layoutCanMatter: the keyboard's path, what is scrolled into view, panes, screenshots) run again
# in a smaller window with text half as large again (GDK_DPI_SCALE=1.5), so that nothing they
# do depends on where things are laid out. The others skip there, saying so.
DESKTOP_ENV := PROTOTYPER_REQUIRE_COMPONENTS=1 PROTOTYPER_OLLAMA=$(OLLAMA) PROTOTYPER_BIN=$(CURDIR)/$(BIN)
# The window's tests in three passes at once, sharing one list of the default layout's tests
# (each runs in the first pass to reach it: PROTOTYPER_TEST_SHARED names the folder where they
# take their tests): two passes in the default layout, and the second layout's, which runs its
# own tests (layoutCanMatter) in that layout and takes the default layout's between them. Each
# test has its own X server, session bus and window, each pass its own Ollama; most of a window
# test is waiting for what it watches, so the passes share two cores well. Each pass's output is
# printed whole when it ends. `make test-desktop-default` runs the default layout's tests in one
# pass, `make test-desktop-large` the second layout's alone. `make test` runs the fresh clone's
# check beside them (DESKTOP_BESIDE): it keeps a core busy for a minute and a half, while a
# window test mostly waits.
DESKTOP_BESIDE ?=
test-desktop:
	@shared=$$(mktemp -d) && trap 'rm -rf "$$shared"' EXIT && \
		$(MAKE) --no-print-directory --output-sync=target -j$(words 1 2 3 $(DESKTOP_BESIDE)) PROTOTYPER_TEST_SHARED="$$shared" test-desktop-pass1 test-desktop-pass2 test-desktop-large $(DESKTOP_BESIDE)

test-desktop-pass1 test-desktop-pass2: test-desktop-pass%:
	$(DESKTOP_ENV) PROTOTYPER_TEST_SHARED=$(PROTOTYPER_TEST_SHARED) PROTOTYPER_TEST_PASS=$* go test -timeout 40m -count=1 -v -run 'Desktop' ./tests/

# go test's own deadline (10 minutes a binary by default) bounds a hang only: each window test
# bounds its own waits, and a whole pass takes 6 to 8 minutes on two idle cores.
test-desktop-default:
	$(DESKTOP_ENV) go test -timeout 40m -count=1 -v -run 'Desktop' ./tests/

test-desktop-large:
	$(DESKTOP_ENV) PROTOTYPER_TEST_SHARED=$(PROTOTYPER_TEST_SHARED) PROTOTYPER_TEST_PASS=$(if $(PROTOTYPER_TEST_SHARED),3) PROTOTYPER_TEST_LAYOUT=large go test -timeout 40m -count=1 -v -run 'Desktop' ./tests/

test-package:
	$(DESKTOP_ENV) PROTOTYPER_DEB=$(CURDIR)/$(DEB) go test -count=1 -v -run 'Package' ./tests/

## bench: the figures at the size people reach, each beside its peer, a row per size
## (search over chats, a chat's changes, undo against a plain rewrite, search_files against
## ripgrep and grep, the real window's deliveries, first text and memory); it installs ripgrep,
## the peer search_files is held to
bench: build $(OLLAMA)
	scripts/install-deps.sh ripgrep
	PROTOTYPER_BIN=$(CURDIR)/$(BIN) PROTOTYPER_OLLAMA=$(OLLAMA) scripts/bench.sh

## bench-all: every benchmark of the Go packages
bench-all: deps $(OLLAMA)
	PROTOTYPER_OLLAMA=$(OLLAMA) go test -run '^$$' -bench . -benchmem $(GO_PKGS)

## bench-stream: the chat window streaming in headless Chromium (10,000 tokens at 200/s, and a
## 10-minute memory run; BENCH_MINUTES=2 for a quick one)
bench-stream: $(NODE_STAMP)
	scripts/install-deps.sh chromium
	cd frontend && npm run bench:stream -- $(if $(BENCH_MINUTES),--minutes=$(BENCH_MINUTES))

## moonshot: a new user's first minutes, each step timed (tests/moonshot_test.go; not part of
## `make test`, it needs the network): a fresh clone of the committed tree with empty Go and npm
## caches, `make run` to the window with an ollama on PATH and a scripted model present, then by
## keyboard a new folder, the model, write_file set to ask, the request, the change approved,
## the page in the preview, the undo (PROTOTYPER_MOONSHOT_MODEL=NAME: a real model present in
## PROTOTYPER_MOONSHOT_MODELS, by default ~/.ollama/models, instead of the scripted one)
moonshot: deps-deb $(OLLAMA)
	PROTOTYPER_REQUIRE_COMPONENTS=1 PROTOTYPER_OLLAMA=$(OLLAMA) go test -tags=$(TAGS),moonshot -count=1 -v -timeout 60m -run 'TestMoonshot' ./tests/

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html
