import Foundation
import XCTest

/// `vision-server` over real HTTP: the answers of each route, the metrics, and the errors a client can cause.
final class VisionServerTests: XCTestCase {
    /// One server for the tests that do not stop it: 2 workers, a 2 MiB body limit.
    nonisolated(unsafe) static var shared: ServerProcess?

    var server: ServerProcess {
        get throws {
            if let server = Self.shared { return server }
            let server = try ServerProcess(["--workers", "2", "--queue", "8", "--max-body-bytes", String(2 << 20), "--max-pixels", "20000000"])
            Self.shared = server
            return server
        }
    }

    override class func tearDown() {
        shared = nil
        super.tearDown()
    }

    func testClassifyBird() throws {
        let response = try server.request("POST", "/v1/classify?max-results=3", body: try TestPaths.image("bird.png"), headers: ["Content-Type": "image/png"])
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        let heads = response.json["classifications"] as? [[String: Any]] ?? []
        let categories = heads.first?["categories"] as? [[String: Any]] ?? []
        XCTAssertEqual(categories.count, 3, response.text)
        XCTAssertEqual(categories.first?["category_name"] as? String, "chickadee", response.text)
        XCTAssertNotNil(response.json["ms"] as? Double)
        // The CLI's options: an allowlist (repeatable) keeps only those names.
        let allowed = try server.request("POST", "/v1/classify?allow=chickadee&allow=junco,%20snowbird&max-results=-1", body: try TestPaths.image("bird.png"))
        let names = ((allowed.json["classifications"] as? [[String: Any]])?.first?["categories"] as? [[String: Any]])?.compactMap { $0["category_name"] as? String }
        XCTAssertEqual(names.map(Set.init), ["chickadee", "junco, snowbird"], allowed.text)
    }

    func testDetectPetsMultiple() throws {
        let response = try server.request("POST", "/v1/detect?multiple", body: try TestPaths.image("pets.jpg"), headers: ["Content-Type": "image/jpeg"])
        XCTAssertEqual(response.status, 200, response.text)
        let objects = response.json["objects"] as? [[String: Any]] ?? []
        XCTAssertEqual(objects.count, 2, response.text)
        for object in objects {
            let frame = object["frame"] as? [String: Double] ?? [:]
            XCTAssertEqual(Set(frame.keys), ["x", "y", "width", "height"])
            XCTAssertGreaterThan(frame["width"] ?? 0, 0)
        }
        let single = try server.request("POST", "/v1/detect", body: try TestPaths.image("pets.jpg"))
        XCTAssertEqual((single.json["objects"] as? [Any])?.count, 1, single.text)
    }

    func testInkCandidates() throws {
        let points = (0..<30).map { "{\"x\": \(100 + $0 * 10), \"y\": \(200 + ($0 % 3)), \"t\": \($0 * 15)}" }.joined(separator: ", ")
        let body = Data("{\"strokes\": [[\(points)]]}".utf8)
        let response = try server.request("POST", "/v1/ink?lang=zxx-Zsym-x-shapes", body: body, headers: ["Content-Type": "application/json"])
        XCTAssertEqual(response.status, 200, response.text)
        let candidates = response.json["candidates"] as? [[String: Any]] ?? []
        XCTAssertFalse(candidates.isEmpty, response.text)
        XCTAssertEqual(candidates.first?["text"] as? String, "line", response.text)
        let text = try server.request("POST", "/v1/ink?lang=en&pre-context=hello", body: body)
        XCTAssertEqual(text.status, 200, text.text)
        XCTAssertFalse((text.json["candidates"] as? [Any] ?? []).isEmpty, text.text)
    }

    func testHealthModelsAndMetrics() throws {
        let health = try server.request("GET", "/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.json["status"] as? String, "ok")
        XCTAssertEqual(health.json["workers"] as? Int, 2)
        let models = try server.request("GET", "/v1/models")
        XCTAssertEqual(models.status, 200)
        let list = (try? JSONSerialization.jsonObject(with: models.body)) as? [[String: Any]] ?? []
        XCTAssertTrue(list.contains { $0["name"] as? String == "mobilenet_v2_quant" && $0["default_for"] as? String == "image-classification" })
        _ = try server.request("POST", "/v1/classify", body: Data("not an image".utf8))
        _ = try server.request("POST", "/v1/classify", body: try TestPaths.image("bird.png"))
        let metrics = try server.request("GET", "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.text.contains("litevision_http_request_duration_seconds_bucket{route=\"/v1/classify\""), metrics.text)
        XCTAssertTrue(metrics.text.contains("# TYPE litevision_http_request_duration_seconds histogram"), metrics.text)
        XCTAssertTrue(metrics.text.contains("litevision_http_requests_in_flight"), metrics.text)
        XCTAssertTrue(metrics.text.contains("litevision_http_errors_total{kind=\"invalid_image\"}"), metrics.text)
    }

    func testClientErrors() throws {
        func expect(_ response: HTTPResponse, _ status: Int, _ kind: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(response.status, status, response.text, file: file, line: line)
            XCTAssertEqual(response.errorKind, kind, response.text, file: file, line: line)
            XCTAssertNotNil((response.json["error"] as? [String: Any])?["message"] as? String, file: file, line: line)
        }
        // Larger than --max-body-bytes (refused by its Content-Length, before it is read).
        expect(try server.request("POST", "/v1/classify", body: Data(count: (2 << 20) + 1)), 413, "body_too_large")
        let jpeg = try TestPaths.image("pets.jpg")
        expect(try server.request("POST", "/v1/classify", body: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })), 400, "invalid_image")
        expect(try server.request("POST", "/v1/classify", body: Data()), 400, "invalid_image")
        expect(try server.request("POST", "/v1/detect", body: jpeg.prefix(jpeg.count / 3)), 400, "invalid_image")
        expect(try server.request("POST", "/v1/classify", body: jpeg, headers: ["Content-Type": "multipart/form-data; boundary=x"]), 415, "unsupported_media_type")
        // A PNG header declaring 100000 x 100000 pixels.
        expect(try server.request("POST", "/v1/classify", body: Self.pngHeader(width: 100_000, height: 100_000)), 400, "image_too_large")
        expect(try server.request("POST", "/v1/ink", body: Data("{\"strokes\": [[{\"x\": 1,".utf8)), 400, "invalid_json")
        expect(try server.request("POST", "/v1/ink", body: Data("{\"lines\": []}".utf8)), 400, "invalid_ink")
        expect(try server.request("POST", "/v1/ink", body: Data("{}".utf8), headers: ["Content-Type": "text/plain"]), 415, "unsupported_media_type")
        expect(try server.request("POST", "/v1/ink?lang=xx-nowhere", body: Data("{\"strokes\": []}".utf8)), 400, "unknown_model")
        expect(try server.request("POST", "/v1/classify?max-results=many", body: jpeg), 400, "invalid_parameter")
        expect(try server.request("POST", "/v1/classify?max_results=3", body: jpeg), 400, "invalid_parameter")
        expect(try server.request("POST", "/v1/classify?allow=a&deny=b", body: jpeg), 400, "invalid_parameter")
        expect(try server.request("POST", "/v1/classify?model=no-such-model", body: jpeg), 400, "unknown_model")
        expect(try server.request("POST", "/v1/classify?model=/etc/passwd", body: jpeg), 400, "unknown_model")
        // The server is still there.
        XCTAssertEqual(try server.request("GET", "/health").status, 200)
    }

    /// One worker and no queue: a request arriving while the worker is busy gets 503 with Retry-After; SIGTERM with
    /// a request in flight lets it finish, then the process exits 0.
    func testBusyAndGracefulShutdown() throws {
        let server = try ServerProcess(["--workers", "1", "--queue", "0", "--debug-hold-ms", "1500"])
        let bird = try TestPaths.image("bird.png")
        let port = server.port
        nonisolated(unsafe) var slow: Result<HTTPResponse, Error>?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            slow = Result { try HTTPResponse.send(port: port, method: "POST", path: "/v1/classify", body: bird, headers: [:]) }
            done.signal()
        }
        // Wait until the slow request holds the worker.
        let deadline = Date().addingTimeInterval(10)
        while (try server.request("GET", "/health").json["busy"] as? Int) != 1 {
            guard Date() < deadline else { return XCTFail("the first request never took the worker") }
            usleep(20_000)
        }
        let refused = try server.request("POST", "/v1/classify", body: bird)
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.errorKind, "busy")
        XCTAssertEqual(refused.headers["retry-after"], "1")
        XCTAssertEqual(server.terminate(), 0)
        done.wait()
        let response = try XCTUnwrap(slow).get()
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertTrue(response.text.contains("chickadee"), response.text)
    }

    /// A PNG declaring an RGB image of the given size, with a few bytes of pixel data.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ payload: Data) -> Data {
            let body = Data(type.utf8) + payload
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            crc ^= 0xFFFF_FFFF
            var out = Data()
            withUnsafeBytes(of: UInt32(payload.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(body)
            withUnsafeBytes(of: crc.bigEndian) { out.append(contentsOf: $0) }
            return out
        }
        var header = Data()
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { header.append(contentsOf: $0) } }
        header.append(contentsOf: [8, 2, 0, 0, 0])
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", header)
            + chunk("IDAT", Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])) + chunk("IEND", Data())
    }
}
