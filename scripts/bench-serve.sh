#!/usr/bin/env bash
# The service under load (make bench-serve): `spotlite serve` (release build) on the Debian corpus, on loopback.
#  1. wrk: a mix of the search kinds and resolves, with a writer committing 20 changes a second through sqlite3;
#     requests/s and latency, next to the same searches run as `spotlite search` processes (hyperfine -N).
#     BENCH_SERVE_CORPUS=synthetic-N serves a copy of the benchmarks' synthetic corpus of N items instead (made
#     once, and kept with the benchmarks' fixtures: a million items take minutes), with 20 requests of each of
#     the search benchmarks' kinds from its own words (Benchmarks' `profile queries`).
#  2. A subscriber's latency: edit → the event on its stream, over 200 edits (Tests/Browser/subscriber_latency.py).
# Prints a table; asserts nothing (timings belong to benchmarks, not tests).
set -euo pipefail
source "$(dirname "$0")/scratch-server.sh"
cd "$(dirname "$0")/.."
# BENCH_SERVE_BINARY: another build to time (a commit's release build beside this one's, run after run).
binary=${BENCH_SERVE_BINARY:-$PWD/.build/release/spotlite}
duration=${BENCH_SERVE_SECONDS:-20}
for tool in wrk hyperfine sqlite3; do
    command -v "$tool" >/dev/null || { echo "bench-serve: $tool is missing (make deps installs it)" >&2; exit 1; }
done
scratch=$(mktemp -d)
server=""; writer=""
cleanup() {
    [ -n "$writer" ] && kill "$writer" 2>/dev/null || true
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT
export SPOTLITE_STORE="$scratch/tracker.sqlite" SPOTLITE_INDEX="$scratch/index"
corpus=${BENCH_SERVE_CORPUS:-debian}
case "$corpus" in
debian)
    "$binary" init >/dev/null
    gzip -dc samples/debian-changelogs.jsonl.gz | "$binary" import - >/dev/null
    "$binary" index >/dev/null
    word=dpkg words="security update" subscribed=security
    # Each search kind with Debian words.
    paths='"/v1/search?q=dpkg", "/v1/search?q=security%20update", "/v1/search?q=translation%20OR%20upload",
  "/v1/search?q=%22new%20upstream%22", "/v1/search?q=fix%20priority:3%20is:open",
  "/v1/search?q=debian%20created:2015-01-01..2018-12-31", "/v1/search?q=build&sort=modified",
  "/v1/search?q=upload", "/v1/search?q=policy%20standards",'
    ;;
synthetic-[0-9]*)
    items=${corpus#synthetic-}
    swift run -c release --package-path Benchmarks profile queries "$items" 20 >"$scratch/queries.txt"
    fixture=$(sed -n 1p "$scratch/queries.txt")
    sqlite3 "$fixture/tracker.sqlite" ".backup '$SPOTLITE_STORE'"  # the fixture's WAL included
    cp -r "$fixture/index" "$SPOTLITE_INDEX"
    # A copied index's first write runs Xapian's full check (its files are not the ones last recorded as sound):
    # 25 s at 1M items. Made here, outside the run, with one change for it to apply.
    sqlite3 "$SPOTLITE_STORE" "UPDATE items SET priority = priority WHERE rowid = (SELECT min(rowid) FROM items);"
    "$binary" index >/dev/null
    word=$(sed -n 2p "$scratch/queries.txt") words=$(sed -n 3p "$scratch/queries.txt") subscribed=$word
    paths=$(sed -n '4,$p' "$scratch/queries.txt" | sed 's/.*/"&",/')
    ;;
*)
    echo "bench-serve: BENCH_SERVE_CORPUS is debian or synthetic-N (N items), not '$corpus'" >&2
    exit 2
    ;;
esac
start_scratch_server "$binary" "$scratch"

# The request mix: the searches, and resolves of five URIs.
uris=$("$binary" search "$word" --format ids --limit 5 2>/dev/null | sed 's/.*/"&"/' | paste -sd, -)
cat > "$scratch/mix.lua" <<LUA
local paths = {
  $paths "RESOLVE",
}
local body = '{"uris": [$uris]}'
local i = 0
request = function()
  i = i + 1
  local path = paths[(i % #paths) + 1]
  if path == "RESOLVE" then
    return wrk.format("POST", "/v1/resolve", {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", path)
end
LUA

# A writer: 20 changes a second, through a plain sqlite3 shell, as another program would.
ids=$(sqlite3 "$SPOTLITE_STORE" "SELECT id FROM items ORDER BY rowid LIMIT 400")
(
    while true; do
        for id in $ids; do
            sqlite3 -cmd ".timeout 5000" "$SPOTLITE_STORE" "UPDATE items SET priority = 1 + priority % 3 WHERE id = '$id';"
            sleep 0.05
        done
    done
) &
writer=$!

echo "## spotlite serve under load ($corpus corpus, $(nproc) cores, wrk -t2 -c${BENCH_SERVE_CONNECTIONS:-16} -d${duration}s, writer at 20 changes/s)"
wrk -t2 -c"${BENCH_SERVE_CONNECTIONS:-16}" -d"${duration}s" --latency -s "$scratch/mix.lua" "$url" | tee "$scratch/wrk.txt"
kill "$writer" 2>/dev/null || true; wait "$writer" 2>/dev/null || true; writer=""

echo
echo "## the same searches as processes (hyperfine -N), beside the process that only starts (--version)"
hyperfine -N --warmup 5 --runs 50 --export-json "$scratch/hf.json" "$binary --version" \
    "$binary search $word --format ids" "$binary search $words --format ids" >/dev/null 2>&1
python3 - "$scratch/hf.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
start = results[0]["median"] * 1000
for result in results:
    median = result["median"] * 1000
    name = result["command"].split("/")[-1]
    if result is results[0]:
        print(f"{name:45s} median {median:.1f} ms")
    else:
        print(f"{name:45s} median {median:.1f} ms  ({median / start:.1f}× --version; {1000 / median:.0f}/s on one core)")
PY

echo
echo "## edit → subscriber (200 edits through sqlite3, one at a time)"
python3 Tests/Browser/subscriber_latency.py "$url" "$SPOTLITE_STORE" 200 "$subscribed"
