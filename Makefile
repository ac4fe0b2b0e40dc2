# receiptdesk — the two commands people need are `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libssl-dev libsqlite3-dev libncurses-dev libcurl4-openssl-dev tmux
BIN_DEBUG := .build/debug/receiptdesk
BIN_RELEASE := .build/release/receiptdesk

.PHONY: deps build release test bench run certificates clean

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

test: deps
	$(SWIFT) build
	$(SWIFT) test 2>&1 | tee .build/test.log | grep -vE '^(Test Case|\[[0-9]+/[0-9]+\]|Test Suite .* (started|passed)|✔ Suite |✔ Test .*\) passed|◇ )' ; \
	  exit $${PIPESTATUS[0]}

bench: release
	$(BIN_RELEASE) bench

# Until the console exists: decode and verify the bundled sample receipts and print their trees.
run: build
	$(BIN_DEBUG) samples

clean:
	rm -rf .build
