#!/usr/bin/env bash
# Builds the tests under a sanitizer and runs them (Docs/hardening.md).
#
#   tools/sanitize.sh address [swift test arguments]   AddressSanitizer and UndefinedBehaviorSanitizer: every test
#                                                      target but VisionServerTests
#   tools/sanitize.sh thread  [swift test arguments]   ThreadSanitizer: the concurrency tests
#   tools/sanitize.sh address|thread --representative  the part CI runs (tools/test.sh): under `address`, the
#                                                      reader, image decoders, every op's kernels (MediaPipe's
#                                                      too), whole models, the interpreter's errors, the fuzzers'
#                                                      regression tests, the detector's and ink reader's hostile
#                                                      inputs (`representative_address` below); under
#                                                      `thread`, every concurrency test
#
# The tests are built in a package of their own, .build-asan/package or .build-tsan/package, whose Sources, Tests,
# tools, models and the other directories the tests read are symbolic links into this checkout, and whose manifest
# declares the same library, C and test targets as Package.swift but none of the server's or benchmarks' (and so
# none of their package dependencies): `--sanitize` applies to every target of a build, and Hummingbird, SwiftNIO
# and the benchmark package's malloc interposer would otherwise be compiled with it. SwiftPM passes the
# sanitizer to clang for the C targets as well (-fsanitize=address or -fsanitize=thread). swiftc on Linux refuses
# -sanitize=undefined, so the manifest adds -fsanitize=undefined to the C targets' flags; its handlers are in the
# AddressSanitizer runtime that swiftc links.
#
# SANITIZE_BUILD_ONLY=1 builds and stops (to time the build alone). SANITIZE_OPTIMIZE=0 builds the Swift libraries
# without Package.swift's -O, in .build-asan-onone or .build-tsan-onone: no optimizer in the cold build, slower
# kernels in the tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-}"
case "$mode" in
    address) short=asan; sanitizers=(--sanitize=address); c_sanitizers='"-fsanitize=undefined"' ;;
    thread) short=tsan; sanitizers=(--sanitize=thread); c_sanitizers='' ;;
    *) echo "usage: tools/sanitize.sh address|thread [--representative] [swift test arguments]" >&2; exit 2 ;;
esac
shift
# The mutated op goldens of FuzzTests are left out of the representative part: the libFuzzer target model-invoke,
# under AddressSanitizer in the same CI run (tools/fuzz.sh --ci), mutates the same models.
representative_address='LiteFormatTests|LiteImageTests|TensorFlowLiteCompatTests|LiteEngineTests\.(OpGoldenTests|KernelConsistencyTests|ModelGoldenTests|InterpreterTests|HostileModelTests|WhileTests|IntegerArithmeticTests|FastRequantizationTests|ParallelTests)|LiteEngineTests\.FuzzTests/testMutated(ShapeAndIndexOpModels|ControlFlowModels|ModelsOfTheNewerOps)NeverCrash|LiteEngineTests\.InstructionSetTests/test(OpenBLASDeepBindIsLeftOutForSanitizers|FloatModelRunsWithAnEmptyEnvironment)|LiteEngineTests\.(MediaPipeOpGoldenTests|StridedSliceShrinkAxisTests|PoolingWindowOverflowTests|EmptyOutputTests)|LiteTasksTests\.(DetectionFuzzTests|InkJSONTests)'
if [ "${1:-}" = --representative ]; then
    shift
    if [ "$mode" = address ]; then
        set -- --filter "$representative_address" "$@"
    fi
fi
[ "${SANITIZE_OPTIMIZE:-1}" = 0 ] && short="$short-onone"
package="$root/.build-$short/package"
mkdir -p "$package"
# The tests find their data from #filePath: models, goldens and tools in the package root, ../shared beside it.
for entry in Sources Tests tools models Docs .goldens .venv .venv-mediapipe; do
    ln -sfn "$root/$entry" "$package/$entry"
done
ln -sfn "$root/../shared" "$root/.build-$short/shared"
# The same dependency versions as the checkout's own build, when it has resolved them.
if [ -f "$root/Package.resolved" ] && [ ! -f "$package/Package.resolved" ]; then
    cp "$root/Package.resolved" "$package/Package.resolved"
fi

if [ "$mode" = address ]; then
    package_dependencies='.package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),'
    tool_targets='
        .executableTarget(
            name: "vision-cli",
            dependencies: ["LiteEngine", "LiteTasks", "CZlib", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/vision-cli"
        ),
        .target(name: "ModelFuzzing", dependencies: ["LiteEngine"], path: "tools/ModelFuzzing"),
        .target(name: "TrackingEvaluation", dependencies: ["LiteTasks", "LiteImage"], path: "tools/TrackingEvaluation"),'
    test_targets='
        .testTarget(name: "LiteFormatTests", dependencies: ["LiteFormat"], path: "Tests/LiteFormatTests", exclude: ["Goldens"]),
        .testTarget(name: "LiteImageTests", dependencies: ["LiteImage", "LiteTasks"], path: "Tests/LiteImageTests", exclude: ["Fixtures"]),
        .testTarget(name: "LiteTasksTests", dependencies: ["LiteTasks", "TrackingEvaluation", "CZlib"], path: "Tests/LiteTasksTests", exclude: ["Goldens"]),
        .testTarget(name: "TensorFlowLiteCompatTests", dependencies: ["TensorFlowLiteCompat", "LiteEngine", "LiteFormat"], path: "Tests/TensorFlowLiteCompatTests"),
        .testTarget(
            name: "LiteEngineTests",
            dependencies: ["LiteEngine", "LiteTasks", "ModelFuzzing", "vision-cli", "CLiteKernels"],
            path: "Tests/LiteEngineTests",
            exclude: ["Goldens"]
        ),'
    extra_library_targets='
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(name: "TensorFlowLiteCompat", dependencies: ["LiteEngine"], path: "Sources/TensorFlowLiteCompat", swiftSettings: swift6),'
else
    package_dependencies=''
    tool_targets=''
    # The concurrency tests alone: the files are self-contained.
    test_targets='
        .testTarget(
            name: "LiteEngineTests",
            dependencies: ["LiteEngine", "LiteFormat"],
            path: "Tests/LiteEngineTests",
            sources: ["InterpreterPerThreadTests.swift", "ParallelTests.swift"]
        ),
        .testTarget(
            name: "LiteTasksTests",
            dependencies: ["LiteTasks", "LiteImage", "LiteEngine"],
            path: "Tests/LiteTasksTests",
            sources: ["SharedPipelineConcurrencyTests.swift"]
        ),'
    extra_library_targets=''
fi

if [ "${SANITIZE_OPTIMIZE:-1}" = 0 ]; then
    swift_optimization=''
else
    swift_optimization='.unsafeFlags(["-O"], .when(configuration: .debug))'
fi

cat > "$package/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
// Made by tools/sanitize.sh $mode: the library, C and test targets of ../../Package.swift, with its settings.
import PackageDescription

let optimizedInDebug: [SwiftSetting] = [$swift_optimization]
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let optimizedC: [CSetting] = [.unsafeFlags(["-O2", "-ffp-contract=off"])]
let sanitizedC: [CSetting] = [.unsafeFlags([$c_sanitizers])]

let package = Package(
    name: "LiteVision-$short",
    dependencies: [$package_dependencies],
    targets: [
        .systemLibrary(name: "COpenBLAS", path: "Sources/COpenBLAS"),
        .target(
            name: "CImageCodecs",
            path: "Sources/CImageCodecs",
            cSettings: sanitizedC,
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("gif"), .linkedLibrary("tiff")]
        ),
        .target(name: "CHTTPGet", path: "Sources/CHTTPGet", cSettings: sanitizedC),
        .target(name: "CLiteKernels", path: "Sources/CLiteKernels", cSettings: optimizedC + sanitizedC),
        .target(name: "CBundledFiles", path: "Sources/CBundledFiles", cSettings: [.headerSearchPath("../../models")] + sanitizedC),
        .target(name: "LiteFormat", path: "Sources/LiteFormat", swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteEngine", dependencies: ["LiteFormat", "COpenBLAS", "CLiteKernels"], path: "Sources/LiteEngine", swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteImage", dependencies: ["CImageCodecs"], path: "Sources/LiteImage", swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteTasks", dependencies: ["LiteEngine", "LiteImage", "CHTTPGet", "CBundledFiles"], path: "Sources/LiteTasks", swiftSettings: optimizedInDebug + swift6),$extra_library_targets$tool_targets$test_targets
    ],
    swiftLanguageModes: [.v5]
)
MANIFEST

cd "$package"
start=$(date +%s)
swift build --build-tests "${sanitizers[@]}"
echo "sanitize $mode: build took $(( $(date +%s) - start )) s"
[ "${SANITIZE_BUILD_ONLY:-0}" = 1 ] && exit 0
start=$(date +%s)
# halt_on_error: the first report fails the run. Leaks are not checked: LeakSanitizer reports XCTest's own objects
# at exit (Docs/hardening.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}"
status=0
swift test --skip-build "${sanitizers[@]}" "$@" || status=$?
echo "sanitize $mode: tests took $(( $(date +%s) - start )) s"
exit "$status"
