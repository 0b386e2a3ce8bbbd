#!/usr/bin/env bash
# Where a request to `spotlite serve` spends its instructions: callgrind counts them, steady where this machine's
# timings are not (docs/performance.md, "The server's request in instructions").
#
#   scripts/callgrind-serve.sh BINARY PATH [REQUESTS]
#
# Serves a copy of the store and index SPOTLITE_STORE and SPOTLITE_INDEX name under valgrind, sends 20 requests of
# PATH (e.g. '/v1/search?q=dpkg') over one keep-alive connection, zeroes the counts, sends REQUESTS more (200 by
# default), and prints the instructions a request took: all of the server's but its watcher's (which opens and checks
# the copied index at its own pace), and the search's parts. BINARY must be stripped of debug info (`strip -g`):
# valgrind 3.19 cannot read this toolchain's DWARF 5. With LD_LIBRARY_PATH at a libxapian built with symbols, the
# saved profile (its path is printed) names Xapian's own functions too.
set -euo pipefail
binary=$1 path=$2 requests=${3:-200}
for tool in valgrind callgrind_annotate callgrind_control python3 sqlite3; do
    command -v "$tool" >/dev/null || { echo "callgrind-serve: $tool is missing" >&2; exit 1; }
done
: "${SPOTLITE_STORE:?set SPOTLITE_STORE to the store to serve (a copy is served)}"
: "${SPOTLITE_INDEX:?set SPOTLITE_INDEX to its index (a copy is served)}"
scratch=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT
sqlite3 "$SPOTLITE_STORE" ".backup '$scratch/tracker.sqlite'"
cp -r "$SPOTLITE_INDEX" "$scratch/index"
SPOTLITE_STORE="$scratch/tracker.sqlite" SPOTLITE_INDEX="$scratch/index" valgrind --tool=callgrind \
    --callgrind-out-file="$scratch/callgrind.%p" "$binary" serve --listen 127.0.0.1:0 \
    --search-time-limit 600 2>"$scratch/serve.log" &
server=$!
url=""
for _ in $(seq 1 600); do
    url=$(grep -o 'listening on http://[0-9.:]*' "$scratch/serve.log" | head -1 | cut -d' ' -f3 || true)
    [ -n "$url" ] && break
    sleep 0.2
done
[ -n "$url" ] || { cat "$scratch/serve.log" >&2; echo "callgrind-serve: the server did not start" >&2; exit 1; }
send() {
    python3 - "$url" "$1" "$path" <<'PY'
import http.client, sys, urllib.parse
url = urllib.parse.urlparse(sys.argv[1])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
for _ in range(int(sys.argv[2])):
    connection.request("GET", sys.argv[3])
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"callgrind-serve: {sys.argv[3]} answered {response.status}")
PY
}
send 20
callgrind_control -z "$server" >/dev/null 2>&1
send "$requests"
callgrind_control -d "$server" >/dev/null 2>&1
profile="$scratch/callgrind.$server.1"
for _ in $(seq 1 100); do [ -s "$profile" ] && break; sleep 0.1; done
kept="${TMPDIR:-/tmp}/callgrind-serve.$server"
cp "$profile" "$kept"
callgrind_annotate --inclusive=yes "$profile" >"$scratch/annotated.txt" 2>/dev/null
# The first line whose symbol matches: its inclusive count, per request.
part() {
    local count
    count=$(grep -E -m1 "$1" "$scratch/annotated.txt" | awk '{gsub(",", "", $1); print $1}' || true)
    echo $(((${count:-0}) / requests))
}
total=$(grep -m1 "PROGRAM TOTALS" "$scratch/annotated.txt" | awk '{gsub(",", "", $1); print $1}')
# The watcher's lines are there only when it ran in the window (its first check of the copied index can be late).
watcher=$(grep -E -m1 'IndexWatcherC5watch' "$scratch/annotated.txt" | awk '{gsub(",", "", $1); print $1}' || true)
echo "instructions a request of $path ($requests requests; profile kept at $kept):"
echo "  all but the watcher  $(((total - ${watcher:-0}) / requests))"
echo "  the search           $(part 'SearchSessionC6search_7options')"
echo "    its match          $(part 'SearchPipelineV5match33_')"
echo "    its rows           $(part 'SearchPipelineV7resolve_7details.*ErrorVYKF \[')"
echo "    its snippets       $(part 'addSnippets2to4from5words.*ErrorVYKF \[')"
echo "  the page's JSON      $(part 'SearchB0O7outcomeyAA0B0O7Indexer0C7OutcomeVFZ \[')"
