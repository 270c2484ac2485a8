#!/usr/bin/env bash
# Load run of vision-server on the loopback (Docs/server.md): starts the release build on a free port with
# ../shared/models as the mirror, runs wrk (tools/wrk_post_file.lua) at each concurrency for DURATION seconds,
# prints wrk's summary with latency percentiles, then stops the server with SIGTERM.
#   tools/load_server.sh [ROUTE] [FILE] [DURATION] [CONCURRENCY...]
#   tools/load_server.sh /v1/classify ../shared/images/bird.png 15 1 8 64
# Needs wrk (apt-get install -y wrk). Only 127.0.0.1 is ever targeted.
set -euo pipefail
cd "$(dirname "$0")/.."
route=${1:-/v1/classify}
file=${2:-../shared/images/bird.png}
duration=${3:-15}
shift $(( $# < 3 ? $# : 3 ))
levels=${*:-1 8 64}
swift build -c release --product vision-server >/dev/null
out=$(mktemp)
.build/release/vision-server --port 0 --mirror ../shared/models --queue "${QUEUE:-64}" ${WORKERS:+--workers $WORKERS} >"$out" &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$out" | head -1 | cut -d: -f2)
head -1 "$out"
for c in $levels; do
  echo "== $route $(basename "$file"), concurrency $c, ${duration}s"
  wrk -t "$(( c < 2 ? 1 : 2 ))" -c "$c" -d "${duration}s" --latency --timeout 10s -s tools/wrk_post_file.lua \
    "http://127.0.0.1:$port$route" -- "$file"
done
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^litevision_http_(errors|requests)_total' || true
