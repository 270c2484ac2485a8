#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (Docs/fuzzing.md). Each target is built with swiftc directly,
# `-sanitize=fuzzer,address`: its Fuzz/ entry point, linked with the libraries it fuzzes (LiteFormat, LiteImage) built
# with the same flags, or compiled in one module with the sources it fuzzes (LiteEngine, the ink reader).
#
# Usage: tools/fuzz.sh TARGET [seconds] [extra libFuzzer flags]
#        tools/fuzz.sh --ci [runs]
#   TARGET: model-reader (LiteFormat), model-invoke (LiteEngine, LiteFormat, CLiteKernels), model-metadata
#   (LiteFormat's metadata and associated files), image-decoders (LiteImage + CImageCodecs), camera-frames (LiteImage's
#   camera frame conversion), ink-json (InkJSON), ink-ndjson (vision-cli's LineReader + InkJSON), ink-arpa (the
#   Chinese and Japanese character bigram models' ARPA reader).
# Builds into .build-fuzz/, seeds from files already in the checkout and ../shared (by path, never copied), and keeps
# the inputs libFuzzer finds in .build-fuzz/corpus/TARGET. A crash leaves crash-* files in
# .build-fuzz/artifacts/TARGET; replay one with `.build-fuzz/TARGET .build-fuzz/artifacts/TARGET/crash-...`.
# The targets read libFuzzer dictionaries from Fuzz/dictionaries/ (FlatBuffer and zip signatures, image markers,
# JSON tokens).
# FUZZ_NO_BUILD=1 skips the compiling and runs the binaries already built.
# An input is a timeout after FUZZ_TIMEOUT seconds of wall time (default 60: on a busy shared machine a 0.3 s seed
# took 12 s).
#
# --ci builds every target into .build-fuzz/ci, the LiteEngine module unoptimized (FUZZ_CI_ENGINE_OPT, default -Onone:
# its -O build takes 10 minutes on the 2-core VM), then runs each for a fixed number of executions (default 5000)
# from its seeds only: what libFuzzer finds goes to a fresh directory under .build-fuzz/ci, never into the seeds or
# the kept corpus. Exits non-zero at the first target that fails to build,
# crashes, leaks or times out, with the end of its log.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.build-fuzz"
shared="$(cd "$root/../shared" && pwd)"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -wmo -num-threads 2)
# The LiteEngine module's flags (model-invoke), apart so that --ci can build it unoptimized.
engine_flags=("${flags[@]}")
# The C targets under UndefinedBehaviorSanitizer as well, each finding fatal (a crash libFuzzer keeps). swiftc has no
# -sanitize=undefined on Linux; the handlers are in the AddressSanitizer runtime it links.
cflags=(-O2 -g -ffp-contract=off -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
# A Swift trap goes to libFuzzer's crash handler: the Swift runtime's own backtracer, under AddressSanitizer, can hang
# for minutes instead of exiting.
export SWIFT_BACKTRACE=enable=no
targets=(model-reader model-invoke model-metadata image-decoders camera-frames ink-json ink-ndjson ink-arpa)

# Runs a compiler command, unless FUZZ_NO_BUILD is set (to run or replay the binaries already in .build-fuzz).
compile() {
    [ -n "${FUZZ_NO_BUILD:-}" ] || "$@"
}

# Compiles the C files of Sources/$1 with the sanitizers into .build-fuzz/$1/, writes a module map for its
# include/$2 there, and sets `objects` to the object files.
build_c_module() {
    local module="$1" header="$2" c
    objects=()
    mkdir -p "$out/$module"
    printf 'module %s {\n    header "%s"\n    export *\n}\n' "$module" "$root/Sources/$module/include/$header" > "$out/$module/module.modulemap"
    while IFS= read -r c; do
        local object="$out/$module/$(echo "${c#"$root/Sources/$module/"}" | tr / _ | sed 's/\.c$/.o/')"
        compile clang "${cflags[@]}" -I "$root/Sources/$module/include" -c "$c" -o "$object"
        objects+=("$object")
    done < <(find "$root/Sources/$module" -name '*.c' | sort)
}

# Builds the Swift module $1 from the swiftc arguments after it (its source files, any -I) into
# .build-fuzz/modules/ (lib$1.a and $1.swiftmodule), once per run of this script: the targets that fuzz a library
# import it, so LiteFormat and LiteImage are compiled once for all of them.
built_modules=" "
build_swift_module() {
    local module="$1"
    shift
    [[ "$built_modules" == *" $module "* ]] && return 0
    mkdir -p "$out/modules"
    compile swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
        -emit-library -static -I "$out/modules" "$@" -o "$out/modules/lib$module.a"
    built_modules+="$module "
}

# LiteImage and the CImageCodecs objects it calls (`image_objects`), once per run.
build_lite_image() {
    if [[ "$built_modules" != *" LiteImage "* ]]; then
        build_c_module CImageCodecs image_codecs.h
        image_objects=("${objects[@]}")
    fi
    build_swift_module LiteImage -I "$out/CImageCodecs" "$root"/Sources/LiteImage/*.swift
}

# Seeds of the model targets: the op goldens' small models, linked under .build-fuzz/seeds/$target (the shared
# models are megabytes, longer than -max_len), and the shared LSTMs.
op_golden_model_seeds() {
    for model in "$root"/Tests/LiteEngineTests/Goldens/ops/*/model.tflite; do
        ln -sf "$model" "$out/seeds/$target/$(basename "$(dirname "$model")").tflite"
    done
    seeds=("$out/seeds/$target" "$shared/models/lstm")
    max_len=65536
}

# Builds .build-fuzz/$1 and sets `seeds` (directories), `max_len` and `dict` (its libFuzzer dictionary, if any) for it.
build() {
    local target="$1" model file name
    mkdir -p "$out/seeds/$target"
    # swiftc leaves the modules of executables built with -g in the current directory.
    cd "$out"
    case "$target" in
    model-reader)
        dict="$root/Fuzz/dictionaries/tflite.dict"
        build_swift_module LiteFormat "$root"/Sources/LiteFormat/*.swift "$root"/Sources/LiteFormat/Metadata/*.swift
        compile swiftc "${flags[@]}" -module-name ModelReaderFuzzer -I "$out/modules" "$root/Fuzz/ModelReaderFuzzer.swift" "$out/modules/libLiteFormat.a" -o "$out/$target"
        op_golden_model_seeds
        ;;
    model-invoke)
        dict="$root/Fuzz/dictionaries/tflite.dict"
        build_swift_module LiteFormat "$root"/Sources/LiteFormat/*.swift "$root"/Sources/LiteFormat/Metadata/*.swift
        build_c_module CLiteKernels lite_kernels.h
        # The entry point is compiled into the LiteEngine module (its sources name it: `LiteEngine.quantizedRange`).
        # OpenBLAS is opened at run time (BLAS.swift); COpenBLAS only declares it.
        compile swiftc "${engine_flags[@]}" -module-name LiteEngine -I "$out/modules" -I "$out/CLiteKernels" -I "$root/Sources/COpenBLAS" \
            $(find "$root/Sources/LiteEngine" -name '*.swift' | sort) "$root/Fuzz/ModelInvokeFuzzer.swift" \
            "$out/modules/libLiteFormat.a" "${objects[@]}" -o "$out/$target"
        op_golden_model_seeds
        ;;
    model-metadata)
        dict="$root/Fuzz/dictionaries/metadata.dict"
        build_swift_module LiteFormat "$root"/Sources/LiteFormat/*.swift "$root"/Sources/LiteFormat/Metadata/*.swift
        compile swiftc "${flags[@]}" -module-name ModelMetadataFuzzer -I "$out/modules" "$root/Fuzz/ModelMetadataFuzzer.swift" "$out/modules/libLiteFormat.a" -o "$out/$target"
        # The three shared models with metadata under -max_len, whole, and of every shared model with metadata its
        # metadata FlatBuffer and its archive alone (extracted under .build-fuzz, not committed).
        for model in detection/face_detection_short_range classification/automl_labeler_model classification/mobilenet_v1_0.25_224_quant; do
            ln -sf "$shared/models/$model.tflite" "$out/seeds/$target/$(basename "$model").tflite"
        done
        python3 "$root/tools/metadata_seeds.py" "$out/seeds/$target" "$shared"/models/*/*.tflite
        seeds=("$out/seeds/$target")
        max_len=524288
        ;;
    image-decoders)
        dict="$root/Fuzz/dictionaries/images.dict"
        build_lite_image
        compile swiftc "${flags[@]}" -module-name ImageDecoderFuzzer -I "$out/modules" -I "$out/CImageCodecs" "$root/Fuzz/ImageDecoderFuzzer.swift" "$out/modules/libLiteImage.a" \
            "${image_objects[@]}" -ljpeg -lpng16 -lwebp -lwebpdemux -lgif -ltiff -o "$out/$target"
        seeds=("$root/Tests/LiteImageTests/Fixtures" "$shared/images")
        max_len=262144
        ;;
    camera-frames)
        dict=""  # the header is binary fields, no tokens
        build_lite_image
        compile swiftc "${flags[@]}" -module-name CameraFrameFuzzer -I "$out/modules" -I "$out/CImageCodecs" "$root/Fuzz/CameraFrameFuzzer.swift" "$out/modules/libLiteImage.a" \
            "${image_objects[@]}" -ljpeg -lpng16 -lwebp -lwebpdemux -lgif -ltiff -o "$out/$target"
        # Small frames of every format: a 12-byte header (Fuzz/CameraFrameFuzzer.swift) and pixel bytes.
        python3 - "$out/seeds/$target" <<'SEEDS'
import os, sys
for format in range(7):
    for width, height, pad in ((1, 1, 0), (3, 2, 1), (16, 9, 0), (5, 7, 3)):
        pixels = width * height * 4 + (width + 1) * (height + 1) * 2 + 64
        header = bytes([format, width, 0, height, 0, pad, pad, pad, 0x55, 0xAA, 0x00, 0x80])
        with open(os.path.join(sys.argv[1], f"format{format}-{width}x{height}"), "wb") as f:
            f.write(header + bytes((i * 37) & 255 for i in range(pixels)))
SEEDS
        seeds=("$out/seeds/$target")
        max_len=65536
        ;;
    ink-json)
        dict="$root/Fuzz/dictionaries/ink.dict"
        compile swiftc "${flags[@]}" -module-name InkJSONFuzzer "$root/Sources/LiteTasks/Ink/Ink.swift" "$root/Sources/LiteTasks/Ink/InkJSON.swift" \
            "$root/Sources/LiteTasks/Ink/InkJSONReader.swift" "$root/Fuzz/InkJSONFuzzer.swift" -o "$out/$target"
        # Single lines of the shared NDJSON files, a few from each, as seeds (written under .build-fuzz, not committed).
        for file in "$shared"/ink/*.ndjson.gz; do
            name="$(basename "$file" .ndjson.gz)"
            (zcat "$file" 2>/dev/null || true) | head -n 20 | awk -v dir="$out/seeds/$target" -v name="$name" '{ print > (dir "/" name "-" NR ".json") }'
        done
        seeds=("$out/seeds/$target")
        max_len=65536
        ;;
    ink-ndjson)
        dict="$root/Fuzz/dictionaries/ink.dict"
        compile swiftc "${flags[@]}" -module-name InkNDJSONFuzzer -I "$root/Sources/CZlib" "$root/Sources/vision-cli/LineReader.swift" \
            "$root/Sources/LiteTasks/Ink/Ink.swift" "$root/Sources/LiteTasks/Ink/InkJSON.swift" "$root/Sources/LiteTasks/Ink/InkJSONReader.swift" \
            "$root/Fuzz/InkNDJSONFuzzer.swift" -o "$out/$target"
        # Batches of a few lines of each shared NDJSON file, plain, and one gzip'd (under .build-fuzz, not committed).
        for file in "$shared"/ink/*.ndjson.gz; do
            name="$(basename "$file" .ndjson.gz)"
            (zcat "$file" 2>/dev/null || true) | head -n 4 > "$out/seeds/$target/$name.ndjson"
        done
        (zcat "$(ls "$shared"/ink/*.ndjson.gz | head -n 1)" 2>/dev/null || true) | head -n 3 | gzip -c > "$out/seeds/$target/three-lines.ndjson.gz"
        seeds=("$out/seeds/$target")
        max_len=65536
        ;;
    ink-arpa)
        dict="$root/Fuzz/dictionaries/arpa.dict"
        compile swiftc "${flags[@]}" -module-name CharacterBigramFuzzer "$root/Sources/LiteTasks/Ink/CharacterBigramModel.swift" \
            "$root/Fuzz/CharacterBigramFuzzer.swift" -o "$out/$target"
        # Two hand-made models (LF and CRLF lines) and the head of a shipped one cut at a line, which is not a complete
        # model (its header declares more n-grams than it holds); written under .build-fuzz, not committed.
        python3 - "$out/seeds/$target" <<'SEEDS'
import sys
seeds = {
    "tiny.arpa": "\\data\\\nngram 1=4\nngram 2=2\n\n\\1-grams:\n-99\t<s>\t-0.3\n-0.5\t</s>\n-0.4\t日\t-0.2\n-0.6\t本\n\n"
                 "\\2-grams:\n-0.1\t日 本\n-0.2\t<s> 日\n\n\\end\\\n",
    "crlf.arpa": "\\data\\\r\nngram 1=3\r\nngram 2=0\r\n\r\n\\1-grams:\r\n-99\t<s>\t0\r\n-1\t</s>\r\n-1\tx\r\n\\end\\\r\n",
}
for name, text in seeds.items():
    with open(f"{sys.argv[1]}/{name}", "w", encoding="utf-8") as f:
        f.write(text)
SEEDS
        head -c 6000 "$root/models/ink-ja.lm.arpa" | sed '$d' > "$out/seeds/$target/ink-ja-head.arpa"
        seeds=("$out/seeds/$target")
        max_len=65536
        ;;
    *)
        echo "unknown target $target (one of: ${targets[*]})" >&2
        exit 2
        ;;
    esac
}

if [ "${1:-}" = "--ci" ]; then
    runs="${2:-5000}"
    # Built apart from the fuzzing binaries, LiteEngine unoptimized: at -O that module alone takes about 10 minutes
    # on the 2-core VM (2.5 at -Onone), and a few thousand runs from the seeds do not need its speed.
    out="$root/.build-fuzz/ci"
    engine_flags=("${flags[@]/#-O/${FUZZ_CI_ENGINE_OPT:--Onone}}")
    started=$(date +%s)
    for target in "${targets[@]}"; do
        step=$(date +%s)
        build "$target"
        built=$(date +%s)
        # A fresh, empty first directory: libFuzzer writes what it finds there, not into the seeds.
        rm -rf "$out/corpus/$target"
        mkdir -p "$out/corpus/$target"
        cd "$out/corpus/$target"
        # A fixed seed: the same mutations in every CI run, so a failure there replays.
        if ! "$out/$target" -seed=20261128 -runs="$runs" -max_len="$max_len" -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=2048 \
            ${dict:+-dict="$dict"} -artifact_prefix="$out/corpus/$target/" -print_final_stats=1 \
            "$out/corpus/$target" "${seeds[@]}" > "$out/$target.log" 2>&1; then
            tail -n 60 "$out/$target.log" >&2
            echo "fuzz --ci: $target failed (log: $out/$target.log, input: $(ls "$out/corpus/$target"/crash-* "$out/corpus/$target"/leak-* "$out/corpus/$target"/timeout-* 2>/dev/null | head -n 1))" >&2
            exit 1
        fi
        echo "fuzz --ci: $target built in $(( built - step )) s, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$target.log" | grep -o '[0-9]*$') runs in $(( $(date +%s) - built )) s"
    done
    echo "fuzz --ci: ${#targets[@]} targets, $runs runs each, no crash, $(( $(date +%s) - started )) s"
    exit 0
fi

target="${1:?usage: tools/fuzz.sh TARGET [seconds] [libFuzzer flags] | tools/fuzz.sh --ci [runs]; TARGET: ${targets[*]}}"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
build "$target"
cd "$out/artifacts/$target"
"$out/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=2048 -print_final_stats=1 \
    ${dict:+-dict="$dict"} -artifact_prefix="$out/artifacts/$target/" "$@" "$out/corpus/$target" "${seeds[@]}"
