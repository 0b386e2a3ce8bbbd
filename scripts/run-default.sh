#!/usr/bin/env bash
# The main job on the embedded default: a store in the XDG data directory, filled from samples/,
# indexed, searched, and one hit resolved. Safe to run again: the import updates nothing that is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
spotlite=${SPOTLITE_BIN:-.build/release/spotlite}

"$spotlite" init
"$spotlite" import samples/portfolio.jsonl
"$spotlite" index
echo
echo '$ spotlite search "leaking tap"'
"$spotlite" search "leaking tap"
first=$("$spotlite" search "leaking tap" --format ids --limit 1 2>/dev/null)
echo
echo "\$ spotlite resolve $first"
"$spotlite" resolve "$first"
echo
"$spotlite" status
