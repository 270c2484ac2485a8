#!/usr/bin/env bash
# Builds the DocC documentation of the library products (LiteFormat, LiteEngine, LiteImage, LiteTasks,
# TensorFlowLiteCompat) with swift-docc-plugin, treating every DocC warning (a broken symbol link, an unresolved
# topic) as an error. Scratch path .build-docs by default, so the main .build is not invalidated; the archives go to
# <scratch path>/plugins/Swift-DocC/outputs/<Target>.doccarchive.
#
#   tools/docs.sh              # build all five catalogs; exit status non-zero on any warning
#   tools/docs.sh --coverage   # also print each target's documentation coverage (--coverage-summary-level brief)
#
# DOCS_SCRATCH_PATH=.build builds in the main build directory instead: after a debug `swift build` there, only the
# DocC plugin, the symbol graphs and the archives are left to make (tools/test.sh: 96 s against 328 s from nothing).
#
# Preview one catalog: swift package --scratch-path .build-docs --disable-sandbox preview-documentation --target LiteEngine
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(LiteFormat LiteEngine LiteImage LiteTasks TensorFlowLiteCompat)
extra=()
if [[ "${1:-}" == "--coverage" ]]; then
    extra=(--experimental-documentation-coverage --coverage-summary-level brief)
fi

args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done

swift package --scratch-path "${DOCS_SCRATCH_PATH:-.build-docs}" --disable-sandbox generate-documentation "${args[@]}" \
    --warnings-as-errors "${extra[@]}"
