# The README's two commands: `make run` (the main job on the default store) and `make test`.
# Both install the Debian packages they need first.

SWIFT ?= swift

.PHONY: deps build run test bench bench-short clean

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

# The benchmark suite (Benchmarks/, ordo-one/benchmark): Spotlite next to raw Xapian and SQLite FTS5 on the
# Debian corpus and the 10k and 100k synthetic corpora. bench-short (CI) runs the 10k corpus only.
bench: deps
	$(SWIFT) package --package-path Benchmarks benchmark

bench-short: deps
	SPOTLITE_BENCH=short $(SWIFT) package --package-path Benchmarks benchmark

clean:
	rm -rf .build Benchmarks/.build
