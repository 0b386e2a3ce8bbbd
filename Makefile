# The README's two commands: `make run` (the main job on the default store) and `make test`.
# Both install the Debian packages they need first.

SWIFT ?= swift
# Where `make install` puts the binary (bin/) and the manual page (share/man/man1/).
PREFIX ?= $(HOME)/.local
# The manual page, generated from the command tree by swift-argument-parser's generate-manual plugin.
MAN_PAGE = .build/plugins/GenerateManual/outputs/spotlite/spotlite.1
# Seconds each fuzz target runs in `make fuzz`.
FUZZ_SECONDS ?= 60

# Every Swift file the formatter keeps (the house's 120 columns, .swift-format).
SWIFT_SOURCES = Sources Tests Benchmarks/Sources Benchmarks/Benchmarks Package.swift Benchmarks/Package.swift

.PHONY: deps test-deps bench-deps build run test test-fast test-engine man install install-man install-desktop \
	test-cluster api-check bench bench-short bench-serve relevance relevance-check fuzz format lint clean

# What building and running need; the tests' and the benchmarks' own tools come with those targets.
deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-test-deps.sh

bench-deps:
	@scripts/install-bench-deps.sh

# `swift format` (in the toolchain) rewrites the sources to the house's style; `lint` (CI) fails on any difference.
# .swift-format turns off AvoidRetroactiveConformances: `Logger.Level: @retroactive ExpressibleByArgument` is how
# `--log-level` is parsed, and says so.
format:
	$(SWIFT) format format --configuration .swift-format --in-place --recursive $(SWIFT_SOURCES)

lint:
	$(SWIFT) format lint --strict --configuration .swift-format --recursive $(SWIFT_SOURCES)

# -static-stdlib: the Swift runtime and Foundation linked in halve process start, which every command pays, for a
# larger binary (docs/decisions/0008-process-start.md).
build: deps
	$(SWIFT) build -c release --product spotlite -Xswiftc -static-stdlib

run: build
	@scripts/run-default.sh

# The manual page is made from the debug build the tests use, and checked by them (ManualTests). The tests also
# drive Debian's chromium (through Playwright) and xdg-open: test-deps installs them. `make test` runs both tiers:
# the fast one below, and the one that drives the real binary, a browser, namespaces and kills (SpotliteCLITests).
test: deps test-deps test-engine
	$(SWIFT) build --build-tests
	$(SWIFT) package generate-manual --configuration debug >/dev/null
	$(SWIFT) test --skip-build

# The fast tier, for the edit-test loop: the modules' own tests and the server in-process (Hummingbird's testing
# client), on fixtures built once per run and copied; no process, browser or namespace.
FAST_TESTS = ^(XapianTests|TrackerStoreTests|SearchIndexTests|IndexerTests|SpotliteServerTests)\.
test-fast: deps test-engine
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(FAST_TESTS)'

# The engine's own tests (Tests/EngineTests, doctest from Debian): its C++ parts called directly, on real Xapian
# databases, built apart from SwiftPM with AddressSanitizer and UndefinedBehaviorSanitizer, each object once.
ENGINE_CXX ?= clang++
ENGINE_FLAGS = -std=c++17 -g -O1 -Wall -Wextra -Wno-missing-field-initializers -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all -ISources/CXapian/engine
ENGINE_BUILD = .build/engine-tests
ENGINE_SOURCES = $(shell find Sources/CXapian/engine -name '*.cpp') $(wildcard Tests/EngineTests/*.cpp)
ENGINE_HEADERS = $(shell find Sources/CXapian/engine -name '*.h') $(wildcard Tests/EngineTests/*.h)
ENGINE_OBJECTS = $(patsubst %.cpp,$(ENGINE_BUILD)/%.o,$(ENGINE_SOURCES))

$(ENGINE_BUILD)/%.o: %.cpp $(ENGINE_HEADERS)
	@mkdir -p $(dir $@)
	$(ENGINE_CXX) $(ENGINE_FLAGS) -c $< -o $@

$(ENGINE_BUILD)/engine-tests: $(ENGINE_OBJECTS)
	$(ENGINE_CXX) $(ENGINE_FLAGS) -fuse-ld=lld $^ -lxapian -o $@

test-engine: deps test-deps
	@$(MAKE) --no-print-directory -j2 $(ENGINE_BUILD)/engine-tests
	$(ENGINE_BUILD)/engine-tests

# A primary, a replica host and a search host as network namespaces joined by veth pairs (loopback where they cannot
# be made): serve --publish on the primary, spotlite replica on the replica host, serve --stores over a local and a
# remote store on the search host; writes, a killed replica, a cut link, a rebuild, a search with the primary cut
# off, the replica's lag under a writer at 50 changes/s and resolution's cost (scripts/test-cluster.py). On the debug
# build `make test` leaves, or CLUSTER_BINARY.
CLUSTER_BINARY ?= .build/debug/spotlite
test-cluster: deps test-deps
	@test -x $(CLUSTER_BINARY) || $(SWIFT) build --product spotlite
	python3 scripts/test-cluster.py $(CLUSTER_BINARY) $(CLUSTER_FLAGS)

man: deps
	$(SWIFT) package generate-manual --configuration debug

# User-level: ~/.local/bin/spotlite, ~/.local/share/man/man1/spotlite.1 (`man spotlite`), the handler of tracker://
# links (~/.local/share/applications/spotlite.desktop, for `xdg-open tracker://…`) and the systemd user unit of
# `spotlite serve` (~/.config/systemd/user/spotlite-serve.service).
install: build man install-man
	install -D -m 0755 .build/release/spotlite $(PREFIX)/bin/spotlite
	scripts/install-desktop.sh $(PREFIX)

install-desktop:
	scripts/install-desktop.sh $(PREFIX)

# The service under load: wrk on loopback against `spotlite serve` on the Debian corpus (a mix of searches and
# resolves, a writer at 20 changes/s), the same searches as processes, and edit → subscriber latency.
# BENCH_SERVE_CORPUS=synthetic-1000000 serves the benchmarks' synthetic corpus of that many items instead;
# BENCH_SERVE_BINARY times another build (e.g. an earlier commit's, run after run with this one's).
bench-serve: build bench-deps
	scripts/bench-serve.sh

# Schemathesis against the API's OpenAPI description, served by a scratch `spotlite serve` (CI runs it after the
# tests, on the debug build they leave; API_CHECK_FLAGS adds schemathesis options, e.g. --phases fuzzing).
API_CHECK_FLAGS ?= --phases coverage,fuzzing --max-examples 30
api-check:
	scripts/api-check.sh .build/debug/spotlite $(API_CHECK_FLAGS)

install-man:
	install -D -m 0644 $(MAN_PAGE) $(PREFIX)/share/man/man1/spotlite.1

# The benchmark suite (Benchmarks/, ordo-one/benchmark): Spotlite next to raw Xapian and SQLite FTS5 on the
# Debian corpus, the 10k and 100k synthetic corpora and a 100k Zipf corpus over the whole dictionary.
# bench-short (CI) runs the 10k corpus and the bulk catch-up, a few iterations each: it shows the suite runs. Only
# bench times the release binary `build` makes as a process (its static build is most of CI's time otherwise).
# After the framework's table for each benchmark, both print the summary: the page table (kind × corpus) and the
# size table (scripts/bench-tables.py, from the figures the benchmarks write to BENCH_SUMMARY). run-bench takes the
# environment the suite runs with.
BENCH_SUMMARY = $(CURDIR)/.build/bench-summary.jsonl
define run-bench
	@mkdir -p .build && rm -f $(BENCH_SUMMARY)
	$(1) SPOTLITE_BENCH_SUMMARY=$(BENCH_SUMMARY) $(SWIFT) package --package-path Benchmarks benchmark
	@scripts/bench-tables.py $(BENCH_SUMMARY)
endef

bench: build bench-deps
	$(call run-bench,)

bench-short: bench-deps
	$(call run-bench,SPOTLITE_BENCH=short)

# Ranking on the GitBugs dev set (samples/gitbugs-hadoop*): Spotlite next to SQLite FTS5 in one run, R@10 and MRR@10
# for the title-OR task, `similar` and short queries; RELEVANCE_FLAGS=--sweep adds the parameter grids.
# relevance-check (CI) fails if Spotlite ranks below FTS5 on the title-OR task.
relevance: deps
	$(SWIFT) run -c release --package-path Benchmarks relevance $(RELEVANCE_FLAGS)

relevance-check: deps
	$(SWIFT) run -c release --package-path Benchmarks relevance --check

# libFuzzer on the parsers of untrusted text (Tests/Fuzz): each target runs FUZZ_SECONDS on the committed corpus
# (Tests/Fuzz/Corpus, read only) plus a working one under .build; a crash stops it with the input saved there.
fuzz: deps
	$(SWIFT) build --package-path Tests/Fuzz -Xswiftc -sanitize=fuzzer,address
	@for target in query import; do \
		name=$$(echo $$target | sed 's/^./\U&/'); \
		mkdir -p Tests/Fuzz/.build/work/$$target; \
		echo "fuzzing $$target for $(FUZZ_SECONDS) s"; \
		Tests/Fuzz/.build/debug/Fuzz$$name -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
			-artifact_prefix=Tests/Fuzz/.build/work/ Tests/Fuzz/.build/work/$$target Tests/Fuzz/Corpus/$$target \
			2>&1 | grep -E '^(Done|INFO: Seed|==|SUMMARY)|ERROR' || exit 1; \
	done

clean:
	rm -rf .build Benchmarks/.build Tests/Fuzz/.build
