#!/usr/bin/env bash
# Release build of vision-cli: a plain `swift build -c release`, the build every user and dependent gets. The
# engine picks its kernels for the CPU at run time (Docs/architecture.md), so no CPU flags are needed.
# Prints the path of the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vision-cli >&2
echo "$PWD/.build/release/vision-cli"
