import ArgumentParser
import Foundation
import Hummingbird
import LiteEngine
import LiteImage
import LiteTasks
import NIOCore

/// `vision-server`: vision-cli's classify, detect and ink as an HTTP service (Docs/server.md).
@main
struct VisionServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-server",
        abstract: "Serve image classification, object detection and digital ink recognition over HTTP.",
        discussion: """
        POST /v1/classify and /v1/detect take an image's bytes, POST /v1/ink an ink's JSON; query parameters are \
        vision-cli's option names (max-results, score-threshold, allow, multiple, lang, ...). GET /v1/models, /health \
        and /metrics (Prometheus). SIGTERM or SIGINT stops accepting connections and ends after the requests in flight.
        """
    )

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port; the one chosen is printed).") var port = 8080
    @Option(help: "Inference workers, each with its own models, each serving one request at a time (default: the core count).")
    var workers: Int?
    @Option(help: "Requests that may wait for a worker; more are refused with 503 and Retry-After.") var queue = 64
    @Option(help: "The largest request body in bytes; larger ones are refused with 413.") var maxBodyBytes = 32 << 20
    @Option(help: "The most pixels a decoded image may have; larger ones are refused with 400.") var maxPixels = 50_000_000
    @Option(help: "Engine threads per worker.") var threads = 1
    @Option(help: "Quantized numerics: exact or fast.") var numerics: Numerics = .fast
    @Option(help: "The default classifier of /v1/classify: a registry name or a .tflite path.") var model: String?
    @Option(help: "The default detector of /v1/detect: a registry name or a .tflite path.") var detector: String?
    @Option(help: "The default object classifier of /v1/detect?classify: a registry name or a .tflite path.") var classifier: String?
    @Option(help: "A directory laid out like ../shared/models, tried before the network (default: $LITEVISION_MODEL_MIRROR).")
    var mirror: String?
    @Option(help: "The model cache directory (default: $LITEVISION_CACHE_DIR or ~/.cache/litevision/models).") var cacheDir: String?
    @Option(help: .hidden) var debugHoldMs = 0

    func validate() throws {
        guard (workers ?? 1) >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard queue >= 0 else { throw ValidationError("--queue must be 0 or more") }
        guard maxBodyBytes >= 1 else { throw ValidationError("--max-body-bytes must be positive") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be positive") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    }

    func run() async throws {
        let count = workers ?? ProcessInfo.processInfo.activeProcessorCount
        ServerLimits.maxBodyBytes = maxBodyBytes
        let locator = try ModelLocator(mirror: mirror, cacheDirectory: cacheDir)
        let workers = (0..<count).map { Worker(id: $0, numerics: numerics, threads: threads, imageLimits: ImageLimits(maximumPixels: maxPixels)) }
        // Load the default classifier and detector into every worker before listening, so that a bad model stops
        // the server at start and the first requests do not pay for loading.
        do {
            let classifierKey = ClassifierKey(modelPath: try locator.path(model, task: "image-classification", fromClient: false))
            let detectorKey = DetectorKey(detectorPath: try locator.path(detector, task: "object-detection", fromClient: false))
            for worker in workers {
                _ = try worker.classifier(classifierKey)
                _ = try worker.detector(detectorKey)
            }
        } catch {
            throw ValidationError("cannot load the default models: \(error)")
        }
        let service = Service(pool: WorkerPool(workers: workers, queueLimit: queue, holdMilliseconds: debugHoldMs), locator: locator,
                              metrics: ServerMetrics(), maxBodyBytes: maxBodyBytes, defaultModel: model, defaultDetector: detector,
                              defaultClassifier: classifier)
        let app = Application(
            router: service.router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "vision-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("vision-server listening on http://\(host):\(port) with \(count) workers\n".utf8))
            }
        )
        try await app.runService()
        FileHandle.standardOutput.write(Data("vision-server stopped\n".utf8))
    }
}

extension Numerics: ExpressibleByArgument {}
