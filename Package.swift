// swift-tools-version: 6.2
import PackageDescription

/// The engine, reader, image and pipeline code are optimized in debug builds too: `swift run vision-cli classify` and
/// `swift test` would otherwise spend seconds per image in unoptimized kernels (Docs/architecture.md). Debug builds
/// keep `-enable-testing`, so `@testable import` still works. Since tools version 6.2, unsafe flags no longer keep
/// a package from being used as a versioned dependency.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]
/// The libraries are checked in the Swift 6 language mode (complete data-race checking); the executables, tools and
/// tests stay in Swift 5 mode (the package default below).
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
/// C code at -O2 in every configuration, with floating-point contraction off so that results do not depend on
/// whether the compiler fuses a multiply and an add (the microkernels fuse explicitly where they mean to).
let optimizedC: [CSetting] = [.unsafeFlags(["-O2", "-ffp-contract=off"])]

let package = Package(
    name: "LiteVision",
    products: [
        /// The .tflite reader alone: FlatBuffers, FlexBuffers and the TensorFlow Lite schema.
        .library(name: "LiteFormat", targets: ["LiteFormat"]),
        /// The inference engine: interpreter, arena planner and kernels. Depends on nothing but LiteFormat and OpenBLAS.
        .library(name: "LiteEngine", targets: ["LiteEngine"]),
        /// Image decoding (PNG, JPEG, BMP, PPM, WebP, GIF, TIFF), camera frames, orientation and MediaPipe-exact resampling.
        .library(name: "LiteImage", targets: ["LiteImage"]),
        /// The finished pipelines: MediaPipe's ImageClassifier, ML Kit's object detection and digital ink
        /// recognition, the model registry and cache.
        .library(name: "LiteTasks", targets: ["LiteTasks"]),
        /// TensorFlowLiteSwift's `Interpreter` API on the engine: code written for the `TensorFlowLite` module builds
        /// with its import changed to `import TensorFlowLiteCompat` (Docs/tflite-swift.md).
        .library(name: "TensorFlowLiteCompat", targets: ["TensorFlowLiteCompat"]),
        .executable(name: "vision-cli", targets: ["vision-cli"]),
        /// The HTTP service on Hummingbird (Docs/server.md); only this executable depends on the server packages.
        .executable(name: "vision-server", targets: ["vision-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        /// `swift package generate-documentation` (tools/docs.sh): a command plugin only, no library target uses it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenBLAS",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("gif"), .linkedLibrary("tiff")]
        ),
        /// HTTP downloads through libcurl opened at the first download (not linked: FoundationNetworking would load
        /// libcurl and ~30 TLS and network libraries into every process at start).
        .target(name: "CHTTPGet"),
        /// The engine's microkernels in C, one folder per instruction-set level; each file is compiled for its level
        /// with clang's `target` attribute and reached only through LiteEngine's run-time KernelConfiguration.
        .target(name: "CLiteKernels", cSettings: optimizedC),
        /// Files compiled into the library (models/registry.json, the digital ink models), so a binary copied
        /// anywhere finds them without the checkout.
        .target(name: "CBundledFiles", cSettings: [.headerSearchPath("../../models")]),
        .target(name: "LiteFormat", swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteEngine", dependencies: ["LiteFormat", "COpenBLAS", "CLiteKernels"], swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteImage", dependencies: ["CImageCodecs"], swiftSettings: optimizedInDebug + swift6),
        .target(name: "LiteTasks", dependencies: ["LiteEngine", "LiteImage", "CHTTPGet", "CBundledFiles"], swiftSettings: optimizedInDebug + swift6),
        .target(name: "TensorFlowLiteCompat", dependencies: ["LiteEngine"], swiftSettings: swift6),
        .executableTarget(
            name: "vision-cli",
            dependencies: [
                "LiteEngine",
                "LiteTasks",
                "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "vision-server",
            dependencies: [
                "LiteEngine",
                "LiteImage",
                "LiteTasks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "ModelFuzzing", dependencies: ["LiteEngine"], path: "tools/ModelFuzzing"),
        .executableTarget(name: "model-fuzz", dependencies: ["ModelFuzzing"], path: "tools/model-fuzz"),
        .target(name: "TrackingEvaluation", dependencies: ["LiteTasks", "LiteImage"], path: "tools/TrackingEvaluation"),
        .executableTarget(name: "track-eval", dependencies: ["TrackingEvaluation"], path: "tools/track-eval"),
        .testTarget(name: "LiteFormatTests", dependencies: ["LiteFormat"], exclude: ["Goldens"]),
        .testTarget(name: "LiteImageTests", dependencies: ["LiteImage", "LiteTasks"], exclude: ["Fixtures"]),
        .testTarget(name: "LiteTasksTests", dependencies: ["LiteTasks", "TrackingEvaluation", "CZlib"], exclude: ["Goldens"]),
        .testTarget(name: "VisionServerTests", dependencies: ["vision-server"]),
        .testTarget(name: "TensorFlowLiteCompatTests", dependencies: ["TensorFlowLiteCompat", "LiteEngine", "LiteFormat"]),
        .testTarget(
            name: "LiteEngineTests",
            dependencies: ["LiteEngine", "LiteTasks", "ModelFuzzing", "vision-cli", "CLiteKernels"],
            exclude: ["Goldens"]
        ),
        .executableTarget(
            name: "OpBenchmarks",
            dependencies: [
                "LiteEngine",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/OpBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v5]
)
