// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiteVision",
    platforms: [.macOS(.v13)],
    products: [
        /// The .tflite reader alone: FlatBuffers, FlexBuffers and the TensorFlow Lite schema.
        .library(name: "LiteFormat", targets: ["LiteFormat"]),
        /// The inference engine: interpreter, arena planner and kernels. Depends on nothing but LiteFormat and OpenBLAS.
        .library(name: "LiteEngine", targets: ["LiteEngine"]),
        .executable(name: "vision-cli", targets: ["vision-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenBLAS",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .target(name: "LiteFormat"),
        .target(name: "LiteEngine", dependencies: ["LiteFormat", "COpenBLAS"]),
        .executableTarget(
            name: "vision-cli",
            dependencies: [
                "LiteEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "ModelFuzzing", dependencies: ["LiteEngine"], path: "tools/ModelFuzzing"),
        .executableTarget(name: "model-fuzz", dependencies: ["ModelFuzzing"], path: "tools/model-fuzz"),
        .testTarget(name: "LiteFormatTests", dependencies: ["LiteFormat"], exclude: ["Goldens"]),
        .testTarget(
            name: "LiteEngineTests",
            dependencies: ["LiteEngine", "ModelFuzzing", "vision-cli"],
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
