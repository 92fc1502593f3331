# claude-nova.nvim
#   make          build the host binary (bin/claudenova)
#   make test     install the test bed (Neovim 0.10 + 0.12, the pinned claude CLI) and run every test
#                 (CLAUDE_VERSION=x.y.z: against that claude from npm instead)
#   make test-window  the main flows on the window's ends, the pinned claude and every tenth release between
#                 (ALL=1: a short smoke flow on every release of the window)
#   make demo     Neovim + the plugin + a real claude CLI + our scripted model server: no account needed
#   make bench    performance figures (diff, approval latency, UI stall, startup)
#   make release  cross-build the host for linux/darwin x amd64/arm64 into dist/ and
#                 write the release manifest lua/claudenova/core/release.lua (commit it with the tag)

GO      ?= go
TESTBED ?= $(or $(CLAUDENOVA_TESTBED),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/claudenova-testbed)
GOFILES := $(shell find cmd rplugin -name '*.go' -not -name '*_test.go') go.mod go.sum

.PHONY: all build test test-window unit e2e vet fmt testbed demo bench screens lua manifest docs helptags release clean

all: build

# A binary make built is not the plugin's build: its stamp (which says from
# which revision the plugin built it) would call it outdated after the next
# commit.
build: bin/claudenova
	@rm -f bin/claudenova.stamp

bin/claudenova: $(GOFILES)
	$(GO) build -o $@ ./cmd/claudenova

# The manifest Neovim reads; a test fails when it drifts from the binary.
manifest: bin/claudenova
	bin/claudenova -manifest claudenova > rplugin/manifest.vim

# The Commands, Configuration and Highlights sections of doc/claudenova.txt
# are generated from lua/claudenova/commands.lua, the config schema and
# lua/claudenova/setup/highlights.lua, and so are the host's names of the highlight
# groups (rplugin/ui/hlgroups.go); tests fail when they drift.
docs: testbed
	. "$(TESTBED)/env" && "$$NVIM_012" --headless -u NONE -i NONE -l scripts/gendocs.lua
	$(MAKE) helptags

helptags: testbed
	. "$(TESTBED)/env" && "$$NVIM_012" --headless -u NONE -i NONE -c 'helptags doc' -c 'qa!'

# Reproducible (CGO_ENABLED=0, -trimpath, no build id, version and revision
# stamped): the same Go toolchain rebuilds the same bytes from the revision
# the manifest names. RELEASE_FLAGS=-targets=linux/amd64 builds one.
release:
	$(GO) run ./cmd/release -dist dist -manifest lua/claudenova/core/release.lua $(RELEASE_FLAGS)

# Format the Go and Lua sources.
fmt: testbed
	gofmt -w cmd rplugin tests
	. "$(TESTBED)/env" && "$$STYLUA" $(LUAFILES)

testbed:
	@bash scripts/testbed.sh

# gofmt, go mod tidy, go vet and StyLua (stylua.toml; the test bed pins it).
LUAFILES := lua plugin build.lua scripts/gendocs.lua scripts/demo tests/lua tests/e2e/init.lua tests/e2e/observe.lua

vet: testbed
	@. "$(TESTBED)/env" && "$$STYLUA" --check $(LUAFILES) >/dev/null || { echo "Lua needs formatting: run make fmt"; . "$(TESTBED)/env"; "$$STYLUA" --check $(LUAFILES); exit 1; }
	@test -z "$$(gofmt -l cmd rplugin tests)" || { echo "gofmt needed:"; gofmt -l cmd rplugin tests; exit 1; }
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy"; $(GO) mod tidy -diff; exit 1; }
	$(GO) vet ./...

# Every test, with the race detector: the end-to-end suite (real nvim 0.10
# and 0.12, real claude CLI, fake model server; its tests run in parallel,
# three simulated users per core) is listed first so that it starts first,
# and the unit tests run beside it instead of before it.
#
# CLAUDE_VERSION=x.y.z runs it against that claude from npm instead of the
# pinned one (installed beside it in the test bed's cache).
CLAUDE_VERSION ?=
WITH_CLAUDE = $(if $(CLAUDE_VERSION),CLAUDE_BIN="$$(bash scripts/testbed.sh claude $(CLAUDE_VERSION))" && export CLAUDE_BIN &&)

test: testbed build vet
	. "$(TESTBED)/env" && $(WITH_CLAUDE) CLAUDENOVA_REQUIRE_E2E=1 $(GO) test -race -count=1 -timeout 20m ./tests/e2e/ $$($(GO) list ./... | grep -v /tests/e2e)

# The main flows against the window's ends, the pinned claude and every tenth
# release between, as a table of version x flow; ALL=1: a smoke flow on every
# release of the window, release -> pass/fail, seconds (tests/cmd/window; for
# releases and changes to what the host sends claude or reads from it).
test-window: testbed build
	. "$(TESTBED)/env" && ALL=$(ALL) $(GO) run ./tests/cmd/window $(CLAUDE_VERSIONS)

unit: testbed build
	. "$(TESTBED)/env" && $(GO) test -race -count=1 $$($(GO) list ./... | grep -v /tests/e2e)

e2e: testbed build
	. "$(TESTBED)/env" && $(WITH_CLAUDE) CLAUDENOVA_REQUIRE_E2E=1 $(GO) test -count=1 -timeout 20m -v ./tests/e2e/

# The front end's reference screens (tests/lua/screens) written anew from
# what the specs show: 0.12's are shared, 0.10 keeps its own where it differs.
screens: testbed
	. "$(TESTBED)/env" && UPDATE_SCREENS=1 $(GO) test -count=1 -run 'TestFrontEnd/0.12/' ./tests/lua/ && UPDATE_SCREENS=1 $(GO) test -count=1 -run 'TestFrontEnd/0.10/' ./tests/lua/

# The front end's unit tests alone (a few seconds).
lua: testbed
	. "$(TESTBED)/env" && CLAUDENOVA_REQUIRE_E2E=1 $(GO) test -count=1 ./tests/lua/

demo: testbed build
	@bash scripts/demo.sh

bench: testbed build
	@bash scripts/bench.sh

clean:
	rm -rf bin dist
