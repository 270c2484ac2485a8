import Foundation
import Hummingbird
import LiteTasks
import NIOCore

/// What the routes share: the worker pool, the model locator, the metrics and the server's defaults.
struct Service: Sendable {
    let pool: WorkerPool
    let locator: ModelLocator
    let metrics: ServerMetrics
    let maxBodyBytes: Int
    let defaultModel: String?
    let defaultDetector: String?
    let defaultClassifier: String?

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/health", use: measured("/health") { _ in
            let busy = await pool.busy, waiting = await pool.queued
            return json(["status": "ok", "workers": pool.size, "busy": busy, "waiting": waiting, "queue": pool.queueLimit])
        })
        router.get("/v1/models", use: measured("/v1/models") { _ in
            let data = try snakeCaseEncoder().encode(locator.registry.models)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        })
        router.get("/metrics") { _, _ -> Response in
            metrics.workersBusy.set(to: Double(await pool.busy))
            metrics.queueWaiting.set(to: Double(await pool.queued))
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        router.post("/v1/classify", use: measured("/v1/classify") { request in
            let query = try await offloaded {
                var parameters = QueryParameters(request)
                return try ClassifyQuery(&parameters, locator: locator, defaultModel: defaultModel)
            }
            let bytes = try await imageBody(request)
            return json(try await pool.run { try $0.classify(bytes, query) })
        })
        router.post("/v1/detect", use: measured("/v1/detect") { request in
            let query = try await offloaded {
                var parameters = QueryParameters(request)
                return try DetectQuery(&parameters, locator: locator, defaultDetector: defaultDetector, defaultClassifier: defaultClassifier)
            }
            let bytes = try await imageBody(request)
            return json(try await pool.run { try $0.detect(bytes, query) })
        })
        router.post("/v1/ink", use: measured("/v1/ink") { request in
            var parameters = QueryParameters(request)
            let query = try InkQuery(&parameters, registry: locator.registry)
            if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
                throw APIError.unsupportedMediaType("an ink is JSON: send Content-Type: application/json, not \(type)")
            }
            let ink = try InkBody.parse(Data(try await body(request)))
            return json(try await pool.run { try $0.recognize(ink, query) })
        })
        return router
    }

    /// The body, refused with 413 past --max-body-bytes: at once when Content-Length says so, else while reading;
    /// refused with 503 before reading when no worker is free and the queue is full.
    private func body(_ request: Request) async throws -> [UInt8] {
        try await pool.checkRoom()
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            throw APIError.bodyTooLarge(limit: maxBodyBytes)
        }
        do {
            return Array(try await request.body.collect(upTo: maxBodyBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: maxBodyBytes)
        }
    }

    /// An image body: its bytes (the format is read from them), never a multipart form, JSON or text. curl's
    /// default type for `--data-binary`, application/x-www-form-urlencoded, is let through.
    private func imageBody(_ request: Request) async throws -> [UInt8] {
        if let type = request.headers[.contentType]?.lowercased(),
           type.hasPrefix("multipart/") || type.hasPrefix("application/json") || type.hasPrefix("text/") {
            throw APIError.unsupportedMediaType("send the image's bytes as the body (image/png, image/jpeg, application/octet-stream, ...), not \(type)")
        }
        return try await body(request)
    }

    /// Runs `body` on a thread of its own: reading the query may fetch a model the first time it is named (a copy from
    /// the mirror or a download), which must not block NIO's event loops or Swift's cooperative threads.
    private func offloaded<T>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Result<T, Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try body() }) }
        }
        return try result.get()
    }

    private func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: jsonText(object))))
    }

    /// A route's handler with its latency, in-flight count and errors recorded, every error answered as
    /// `{"error": {"kind", "message"}}`.
    private func measured(_ route: String, _ handler: @escaping @Sendable (Request) async throws -> Response)
        -> @Sendable (Request, BasicRequestContext) async throws -> Response {
        { request, context in
            let clock = ContinuousClock()
            let start = clock.now
            metrics.started()
            var response: Response
            var errorKind: String?
            do {
                response = try await handler(request)
            } catch {
                let apiError = APIError.from(error)
                if apiError.status.code >= 500 && apiError.kind != "busy" { context.logger.error("\(route): \(apiError)") }
                errorKind = apiError.kind
                response = Response(status: apiError.status, headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(string: apiError.json)))
                if let retryAfter = apiError.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            }
            metrics.finished(route: route, status: response.status.code, errorKind: errorKind, duration: clock.now - start)
            return response
        }
    }
}
