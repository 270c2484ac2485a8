#!/usr/bin/env bash
# Runs the concurrency tests under ThreadSanitizer (Docs/hardening.md).
#
# The tests are built in a package of their own under .build-tsan/package, which depends on this checkout by path
# and links the test files in: `swift build --sanitize=thread` then builds only the libraries they use, not the
# server and benchmark dependencies a sanitized `swift build --build-tests` of the whole package would compile.
#
# Usage: tools/tsan.sh [extra `swift test` arguments, e.g. --filter InterpreterPerThreadTests]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
package="$root/.build-tsan/package"
identity="$(basename "$root")"
mkdir -p "$package/Tests/ConcurrencyTests"
for test in Tests/LiteEngineTests/InterpreterPerThreadTests.swift Tests/LiteTasksTests/SharedPipelineConcurrencyTests.swift; do
    ln -sf "$root/$test" "$package/Tests/ConcurrencyTests/$(basename "$test")"
done
cat > "$package/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
// Made by tools/tsan.sh: the concurrency tests of the package at ../.. under ThreadSanitizer.
import PackageDescription

let package = Package(
    name: "LiteVisionTSan",
    dependencies: [.package(path: "../..")],
    targets: [
        .testTarget(
            name: "ConcurrencyTests",
            dependencies: ["LiteFormat", "LiteEngine", "LiteImage", "LiteTasks"].map { .product(name: \$0, package: "$identity") },
            path: "Tests/ConcurrencyTests"
        ),
    ],
    swiftLanguageModes: [.v5]
)
MANIFEST
cd "$package"
start=$(date +%s)
swift build --build-tests --sanitize=thread
echo "tsan: build took $(( $(date +%s) - start )) s"
start=$(date +%s)
# halt_on_error: the first race fails the run with its report. OpenBLAS is opened without RTLD_DEEPBIND, which the
# sanitizer runtimes refuse.
LITEVISION_BLAS_DEEPBIND=0 TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}" swift test --skip-build --sanitize=thread "$@"
echo "tsan: tests took $(( $(date +%s) - start )) s"
