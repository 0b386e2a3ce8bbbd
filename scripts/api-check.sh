#!/usr/bin/env bash
# Schemathesis (PyPI) against the OpenAPI description a running `spotlite serve` publishes: generated requests to
# every operation, and checks that no answer is a server error or breaks the description (status codes, content
# types, headers, response schemas). Runs a server of its own on a scratch copy of samples/ and a free loopback port.
# Usage: api-check.sh SPOTLITE_BINARY [schemathesis options]
set -euo pipefail
source "$(dirname "$0")/scratch-server.sh"
binary=${1:?usage: api-check.sh SPOTLITE_BINARY [schemathesis options]}
shift
if ! command -v schemathesis >/dev/null; then
    python3 -m pip install -q --disable-pip-version-check "schemathesis==4.32.5"
fi
scratch=$(mktemp -d)
server=""
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$scratch"' EXIT
export SPOTLITE_STORE="$scratch/tracker.sqlite" SPOTLITE_INDEX="$scratch/index"
"$binary" init >/dev/null
"$binary" import "$(dirname "$0")/../samples/portfolio.jsonl" >/dev/null
"$binary" index >/dev/null
start_scratch_server "$binary" "$scratch"
schemathesis run "$url/openapi.json" --exclude-path-regex '/events$' \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    "$@"
