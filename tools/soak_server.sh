#!/usr/bin/env bash
# Soak and hostile-input run of vision-server on the loopback (Docs/server.md, "Soak"): starts the release build
# with two workers, then for SECONDS at once
#   - wrk at concurrency 8 POSTs a real photo to /v1/classify (the sustainable load), and
#   - wrk at concurrency 4 POSTs malformed bodies in turn (tools/wrk_malformed.lua): a truncated JPEG, text, a PNG
#     declaring 60000x60000 pixels, a multipart form, invalid JSON, JSON that is not an ink, an ink with an infinite
#     coordinate and one with a million-deep array;
# samples the server's resident memory (VmRSS) every 5 s, sends a few bodies over --max-body-bytes with curl, and
# prints the RSS series, both wrk summaries with the malformed run's statuses, and the server's error counters.
# It fails if the server dies, if any malformed body gets an answer other than 4xx, or if SIGTERM does not end it
# with status 0.
#   tools/soak_server.sh [SECONDS] [IMAGE]
# Needs wrk and curl (apt-get install -y wrk curl). Only 127.0.0.1 is ever targeted.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
image=${2:-../shared/images/bird.png}
swift build -c release --product vision-server >/dev/null
work=$(mktemp -d)
out="$work/server.out"
.build/release/vision-server --port 0 --mirror ../shared/models --workers 2 --queue 64 >"$out" 2>"$work/server.err" &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 300); do grep -q listening "$out" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$out" | head -1 | cut -d: -f2)
base="http://127.0.0.1:$port"
head -1 "$out"

python3 - "$work" ../shared/images/pets.jpg <<'PY'
import json, os, struct, sys, zlib
work, jpeg = sys.argv[1], sys.argv[2]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
huge_png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)) + \
    chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
data = open(jpeg, "rb").read()
bodies = [
    ("/v1/classify", "application/octet-stream", "truncated.jpg", data[: len(data) // 3]),
    ("/v1/classify", "text/plain", "text.txt", b"this is not an image"),
    ("/v1/detect", "image/png", "huge.png", huge_png),
    ("/v1/classify", "multipart/form-data;boundary=x", "form.txt", b"--x\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nabc\r\n--x--\r\n"),
    ("/v1/ink", "application/json", "invalid.json", b'{"strokes": [[{"x": 1, "y": '),
    ("/v1/ink", "application/json", "notink.json", json.dumps({"strokes": 5}).encode()),
    ("/v1/ink", "application/json", "infinite.json", b'{"strokes": [[[1e999, 0, 0], [1, 1, 16]]]}'),
    ("/v1/ink", "application/json", "deep.json", b"[" * 1_000_000 + b"]" * 1_000_000),
]
with open(os.path.join(work, "bodies.tsv"), "w") as manifest:
    for route, content_type, name, body in bodies:
        path = os.path.join(work, name)
        open(path, "wb").write(body)
        manifest.write(f"{route}\t{content_type}\t{path}\n")
PY

rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
echo "rss_kb at start: $(rss)"
( while kill -0 "$server" 2>/dev/null; do echo "$(date +%s) $(rss)"; sleep 5; done ) >"$work/rss.log" 2>/dev/null &
sampler=$!
wrk -t 2 -c 8 -d "${seconds}s" --latency --timeout 10s -s tools/wrk_post_file.lua "$base/v1/classify" -- "$image" >"$work/load.txt" &
load=$!
wrk -t 2 -c 4 -d "${seconds}s" --timeout 10s -s tools/wrk_malformed.lua "$base" -- "$work/bodies.tsv" >"$work/malformed.txt" &
malformed=$!
sleep $(( seconds / 2 ))
head -c 40000000 /dev/zero >"$work/big.bin"
oversized=$(for _ in 1 2 3; do curl -s -o /dev/null -w '%{http_code} ' -H 'Content-Type: application/octet-stream' \
  --data-binary @"$work/big.bin" "$base/v1/classify" || echo "curl-failed "; done)
wait "$load" "$malformed"
kill "$sampler" 2>/dev/null || true
echo "== load: /v1/classify $(basename "$image"), concurrency 8, ${seconds}s"
cat "$work/load.txt"
echo "== malformed bodies, concurrency 4, ${seconds}s"
cat "$work/malformed.txt"
echo "== bodies over --max-body-bytes (40 MB, 3 requests): $oversized"
echo "== VmRSS (kB) every 5 s"
awk '{print $2}' "$work/rss.log" | tr '\n' ' '; echo
awk 'NR == 1 {first = $2} {if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2; last = $2}
     END {printf "rss_kb first %d, min %d, max %d, last %d, samples %d\n", first, min, max, last, NR}' "$work/rss.log"
curl -s "$base/metrics" | grep -E '^litevision_http_(errors|requests)_total' || true
status=0
kill -0 "$server" 2>/dev/null || { echo "server died" >&2; status=1; }
if grep -E '^status ' "$work/malformed.txt" | grep -vqE '^status 4[0-9][0-9]:'; then
  echo "a malformed body got an answer other than 4xx" >&2; status=1
fi
case "$oversized" in *413*413*413*) ;; *) echo "bodies over the limit were not all refused with 413" >&2; status=1 ;; esac
kill -TERM "$server"
wait "$server" && echo "server exited 0 after SIGTERM" || { echo "server exit status $? after SIGTERM" >&2; status=1; }
trap 'rm -rf "$work"' EXIT
exit "$status"
