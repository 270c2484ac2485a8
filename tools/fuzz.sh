#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (Docs/fuzzing.md). Each target is built with swiftc directly,
# `-sanitize=fuzzer,address`, from the sources it fuzzes compiled into one module with its Fuzz/ entry point.
#
# Usage: tools/fuzz.sh TARGET [seconds] [extra libFuzzer flags]
#   TARGET: model-reader (LiteFormat), image-decoders (LiteImage + CImageCodecs), ink-json (InkJSON)
# Builds into .build-fuzz/, seeds from files already in the checkout and ../shared (by path, never copied),
# and keeps the inputs libFuzzer finds in .build-fuzz/corpus/TARGET. A crash leaves crash-* files in
# .build-fuzz/artifacts/TARGET; replay one with `.build-fuzz/TARGET .build-fuzz/artifacts/TARGET/crash-...`.
# An input is a timeout after FUZZ_TIMEOUT seconds of wall time (default 60: on a busy shared machine a 0.3 s seed
# took 12 s).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: tools/fuzz.sh model-reader|image-decoders|ink-json [seconds] [libFuzzer flags]}"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
out="$root/.build-fuzz"
shared="$(cd "$root/../shared" && pwd)"
mkdir -p "$out/corpus/$target" "$out/artifacts/$target" "$out/seeds/$target"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g)
seeds=()

case "$target" in
model-reader)
    swiftc "${flags[@]}" -module-name ModelReaderFuzzer "$root"/Sources/LiteFormat/*.swift "$root"/Sources/LiteFormat/Metadata/*.swift \
        "$root/Fuzz/ModelReaderFuzzer.swift" -o "$out/$target"
    # The op goldens' small models; the shared models are megabytes, longer than -max_len.
    for model in "$root"/Tests/LiteEngineTests/Goldens/ops/*/model.tflite; do
        ln -sf "$model" "$out/seeds/$target/$(basename "$(dirname "$model")").tflite"
    done
    seeds=("$out/seeds/$target" "$shared/models/lstm")
    max_len=65536
    ;;
image-decoders)
    objects=()
    mkdir -p "$out/CImageCodecs"
    printf 'module CImageCodecs {\n    header "%s"\n    export *\n}\n' "$root/Sources/CImageCodecs/include/image_codecs.h" > "$out/CImageCodecs/module.modulemap"
    for c in "$root"/Sources/CImageCodecs/*.c; do
        clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CImageCodecs/include" -c "$c" -o "$out/CImageCodecs/$(basename "$c" .c).o"
        objects+=("$out/CImageCodecs/$(basename "$c" .c).o")
    done
    swiftc "${flags[@]}" -module-name ImageDecoderFuzzer -I "$out/CImageCodecs" "$root"/Sources/LiteImage/*.swift \
        "$root/Fuzz/ImageDecoderFuzzer.swift" "${objects[@]}" -ljpeg -lpng16 -lwebp -lwebpdemux -lgif -ltiff -o "$out/$target"
    seeds=("$root/Tests/LiteImageTests/Fixtures" "$shared/images")
    max_len=262144
    ;;
ink-json)
    swiftc "${flags[@]}" -module-name InkJSONFuzzer "$root/Sources/LiteTasks/Ink/Ink.swift" "$root/Sources/LiteTasks/Ink/InkJSON.swift" \
        "$root/Sources/LiteTasks/Ink/InkJSONReader.swift" "$root/Fuzz/InkJSONFuzzer.swift" -o "$out/$target"
    # Single lines of the shared NDJSON files, a few from each, as seeds (written under .build-fuzz, not committed).
    for file in "$shared"/ink/*.ndjson.gz; do
        name="$(basename "$file" .ndjson.gz)"
        (zcat "$file" 2>/dev/null || true) | head -n 20 | awk -v dir="$out/seeds/$target" -v name="$name" '{ print > (dir "/" name "-" NR ".json") }'
    done
    seeds=("$out/seeds/$target")
    max_len=65536
    ;;
*)
    echo "unknown target $target" >&2
    exit 2
    ;;
esac

cd "$out/artifacts/$target"
"$out/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$target/" "$@" "$out/corpus/$target" "${seeds[@]}"
