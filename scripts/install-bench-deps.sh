#!/usr/bin/env bash
# What the benchmarks need beyond the build (make bench, bench-short, bench-serve): the word list the dictionary
# corpus draws from (wamerican: /usr/share/dict/words) and the load tools (wrk, hyperfine). Installs only what is
# missing.
set -euo pipefail
"$(dirname "$0")/install-deps.sh" wamerican wrk hyperfine
