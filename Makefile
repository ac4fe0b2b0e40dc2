# receiptdesk — the two commands people need are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# Build: OpenSSL, SQLite, ncurses, libcurl (Foundation's networking), libpq, libmicrohttpd (the
# service's HTTP server). Tests: the PostgreSQL server, tmux (the console end to end), the sqlite3
# shell (CLI tests look inside the database as an operator would), util-linux and bsdutils (runuser
# for the test server, script for a pseudo-terminal), nginx (the README's reverse-proxy snippet runs
# in front of serve in a test; Debian's `nginx` is the smallest package with the proxy module:
# bookworm's nginx-light is only nginx plus an echo module).
APT_PACKAGES := libssl-dev libsqlite3-dev libncurses-dev libcurl4-openssl-dev libpq-dev libmicrohttpd-dev postgresql tmux sqlite3 util-linux bsdutils curl nginx
BIN_DEBUG := .build/debug/receiptdesk
BIN_RELEASE := .build/release/receiptdesk
DEMO_DB := .build/demo/purchases.sqlite
DEMO_CONFIG := .build/demo/config.json

.PHONY: deps build release test test-sanitized fuzz fuzz-smoke bench run demo-env certificates clean soak

# Installs the Debian packages the build needs, only those missing (a fresh machine needs nothing by hand).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Regenerates the Swift file that embeds Assets/Certificates (a test checks they agree).
certificates:
	./scripts/embed-certificates.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# What `make test` leaves out of its output (the whole log is in .build/test.log): each test's
# events of starting and passing, whole, however many lines a name or an argument spans. Build
# progress, a line per suite, and every failure stay (scripts/quiet-test-output.awk).
TEST_QUIET := awk -f scripts/quiet-test-output.awk

# Tests talk to the simulator on 127.0.0.1 only: no proxy, and the transport refuses anything else.
test: export RECEIPTDESK_LOOPBACK_ONLY := 1
test: export no_proxy := 127.0.0.1,localhost,::1
test: export NO_PROXY := 127.0.0.1,localhost,::1
# The PostgreSQL tests run against a private server (127.0.0.1, a random port, a temporary
# folder; scripts/postgres-test-server.sh), stopped and removed however the tests end.
test: deps
	$(SWIFT) build
	@pgdir=$$(mktemp -d); \
	trap './scripts/postgres-test-server.sh stop "$$pgdir"' EXIT; trap 'exit 130' INT TERM; \
	url=$$(./scripts/postgres-test-server.sh start "$$pgdir") || exit $$?; \
	echo "PostgreSQL test server: $$url"; \
	RECEIPTDESK_TEST_POSTGRES_URL="$$url" $(SWIFT) test 2>&1 | tee .build/test.log | $(TEST_QUIET) ; \
	  exit $${PIPESTATUS[0]}
	$(MAKE) --no-print-directory fuzz-smoke

# The whole test suite under AddressSanitizer, then UndefinedBehaviorSanitizer (own scratch
# paths, so the normal build is untouched), against the same kind of private PostgreSQL server.
# swiftc refuses -sanitize=undefined on Linux ("unsupported option"), and Swift code traps on
# overflow and out-of-bounds access by itself; UBSan instruments the C the modules compile in
# (the shim.h inline wrappers around OpenSSL, SQLite, libpq, ncurses and libmicrohttpd) through clang.
UBSAN_FLAGS := -Xcc -fsanitize=undefined -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined
# The short soak's pass marks are throughput figures (console inputs, grants per operator in 8 s)
# that an instrumented build on a busy machine misses; `make test` and `make soak` run it.
SANITIZE_SKIP := --skip aShortSoakPassesEveryCheck
# lld links instrumented code without gold's hundreds of "Cannot export local symbol '__asan_…'" warnings.
SANITIZE_LINK := -Xswiftc -use-ld=lld
test-sanitized: export RECEIPTDESK_LOOPBACK_ONLY := 1
test-sanitized: export no_proxy := 127.0.0.1,localhost,::1
test-sanitized: export NO_PROXY := 127.0.0.1,localhost,::1
# Leaks inside Foundation, libcurl and XCTest are suppressed (listed with reasons in the file).
test-sanitized: export LSAN_OPTIONS := suppressions=$(CURDIR)/Fuzz/lsan-suppressions.txt:print_suppressions=0
test-sanitized: export UBSAN_OPTIONS := print_stacktrace=1
# A smaller quarantine: ASan keeps freed memory until the quarantine is full, which the soak's
# memory-growth check would otherwise count as growth.
test-sanitized: export ASAN_OPTIONS := quarantine_size_mb=32
test-sanitized: deps
	@mkdir -p .build; pgdir=$$(mktemp -d); \
	trap './scripts/postgres-test-server.sh stop "$$pgdir"' EXIT; trap 'exit 130' INT TERM; \
	url=$$(./scripts/postgres-test-server.sh start "$$pgdir") || exit $$?; \
	echo "PostgreSQL test server: $$url"; \
	for sanitizer in address undefined; do \
	  if [ $$sanitizer = address ]; then flags="--sanitize=address"; else flags="$(UBSAN_FLAGS)"; fi; \
	  echo "== swift test $$flags"; \
	  RECEIPTDESK_TEST_POSTGRES_URL="$$url" $(SWIFT) test $$flags $(SANITIZE_LINK) $(SANITIZE_SKIP) --scratch-path .build/sanitize-$$sanitizer 2>&1 \
	    | tee .build/test-$$sanitizer.log | $(TEST_QUIET); \
	  status=$${PIPESTATUS[0]}; \
	  if [ $$status -ne 0 ] || grep -qE '(ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:)' .build/test-$$sanitizer.log; then \
	    echo "sanitizer $$sanitizer: FAILED (log .build/test-$$sanitizer.log)"; exit 1; fi; \
	done

# libFuzzer over every decoder, the config loader, the simulator's HTTP parser and the console's
# keys (Fuzz/README.md): FUZZ_SECONDS each (default 60). New corpus entries stay in .build/fuzz.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh run

# A few seconds per target after replaying the committed corpus (Fuzz/Corpus: seeds and every
# input that once crashed), and at least FUZZ_SMOKE_RUNS executions each however busy the
# machine; `make test` runs it.
FUZZ_SMOKE_SECONDS ?= 4
FUZZ_SMOKE_RUNS ?= 1000
fuzz-smoke: deps
	FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_SMOKE_RUNS=$(FUZZ_SMOKE_RUNS) ./scripts/fuzz.sh smoke

bench: release
	$(BIN_RELEASE) bench

# Builds the demo database (through the built-in simulator) when absent and opens the console on
# it; without a terminal (a pipe, CI) it prints the demo's conflicts and one customer instead.
run: build
	@[ -f $(DEMO_DB) ] || $(BIN_DEBUG) demo --db $(DEMO_DB)
	@if [ -t 0 ] && [ -t 1 ]; then \
	  $(BIN_DEBUG) console --db $(DEMO_DB) --config $(DEMO_CONFIG); \
	else \
	  echo "no terminal: showing the demo database instead of opening the console"; \
	  $(BIN_DEBUG) conflicts --db $(DEMO_DB) --config $(DEMO_CONFIG) && \
	  $(BIN_DEBUG) customer show 王小明 --db $(DEMO_DB) --config $(DEMO_CONFIG); \
	fi

# For a shell: `eval "$(make -s demo-env)"` puts receiptdesk on PATH and points RECEIPTDESK_DB and
# RECEIPTDESK_CONFIG at the demo (built first when absent; what that prints goes to stderr), so the
# README's examples run as written.
demo-env:
	@$(MAKE) --no-print-directory build >&2
	@[ -f $(DEMO_DB) ] || $(BIN_DEBUG) demo --db $(DEMO_DB) >&2
	@echo 'export PATH="$(CURDIR)/.build/debug:$$PATH"'
	@echo 'export RECEIPTDESK_DB="$(CURDIR)/$(DEMO_DB)"'
	@echo 'export RECEIPTDESK_CONFIG="$(CURDIR)/$(DEMO_CONFIG)"'

# Everything at once under random simulator faults (re-verification at concurrency 32, two more
# operator processes importing and granting, the console on random keys), on SQLite and then on a
# private PostgreSQL server, SOAK_SECONDS each; then integrity, audit chain, no transaction owned
# twice, no grant in force twice, bounded memory (receiptdesk soak --help).
SOAK_SECONDS ?= 120
soak: build
	$(BIN_DEBUG) soak --seconds $(SOAK_SECONDS)
	@pgdir=$$(mktemp -d); \
	trap './scripts/postgres-test-server.sh stop "$$pgdir"' EXIT; trap 'exit 130' INT TERM; \
	url=$$(./scripts/postgres-test-server.sh start "$$pgdir") || exit $$?; \
	$(BIN_DEBUG) soak --seconds $(SOAK_SECONDS) --db "$$url"

clean:
	rm -rf .build
