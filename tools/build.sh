#!/usr/bin/env bash
# Release build of vision-cli tuned for this CPU, in .build-native (see tools/swift-flags.sh).
# Prints the path of the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2046
swift build -c release --product vision-cli --scratch-path .build-native $(tools/swift-flags.sh) >&2
echo "$PWD/.build-native/release/vision-cli"
