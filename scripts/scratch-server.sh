# Sourced by api-check.sh and bench-serve.sh: `start_scratch_server BINARY DIRECTORY` starts `spotlite serve` on a
# free loopback port for the store and index SPOTLITE_STORE and SPOTLITE_INDEX name, logging to DIRECTORY/serve.log;
# it sets `server` (the pid) and `url` (http://127.0.0.1:PORT), or fails with the log if the server did not start
# within 30 s.
start_scratch_server() {
    local binary=$1 directory=$2
    "$binary" serve --listen 127.0.0.1:0 2>"$directory/serve.log" &
    server=$!
    url=""
    for _ in $(seq 1 300); do
        url=$(grep -o 'listening on http://[0-9.:]*' "$directory/serve.log" | head -1 | cut -d' ' -f3 || true)
        [ -n "$url" ] && return 0
        sleep 0.1
    done
    cat "$directory/serve.log" >&2
    echo "$(basename "$0"): the server did not start" >&2
    return 1
}
