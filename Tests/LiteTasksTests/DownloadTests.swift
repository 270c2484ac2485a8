import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import LiteTasks
import XCTest

/// A one-file HTTP/1.1 server on 127.0.0.1 for the download tests: `GET /<name>` answers the file (206 and the rest
/// of it for a `Range: bytes=N-` header), any other path 404. It records each request's Range header, and can send
/// `extraBytes` more than the file, as a hostile or broken server would.
final class LocalHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let name: String
    private let file: Data
    private let extraBytes: Int
    private let lock = NSLock()
    private var seenRanges: [String?] = []

    var ranges: [String?] { lock.withLock { seenRanges } }

    init(serving file: Data, as name: String, extraBytes: Int = 0) throws {
        (self.file, self.name, self.extraBytes) = (file, name, extraBytes)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard listener >= 0, bound, listen(listener, 8) == 0 else { throw TaskError.io("cannot listen on 127.0.0.1") }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in serve() }.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            respond(to: client)
            close(client)
        }
    }

    private func respond(to client: Int32) {
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[..<count]
        }
        let lines = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
        let path = lines[0].split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let range = lines.first { $0.lowercased().hasPrefix("range:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
        lock.withLock { seenRanges.append(range) }
        var head: String
        var body = Data()
        if path != "/" + name {
            head = "HTTP/1.1 404 Not Found"
        } else if let range, range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast()), start < file.count {
            body = file.suffix(from: start)
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(start)-\(file.count - 1)/\(file.count)"
        } else {
            body = file + Data(count: extraBytes)
            head = "HTTP/1.1 200 OK"
        }
        let response = Data((head + "\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8) + body
        response.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = write(client, bytes.baseAddress! + sent, bytes.count - sent)
                guard count > 0 else { return }
                sent += count
            }
        }
    }
}

/// Downloads go through libcurl, opened at the first download; these run against a server on this machine.
final class DownloadTests: XCTestCase {
    /// A registry with no mirror and an empty cache whose one model, "flowers", is at `url`.
    func registry(downloading url: String) throws -> (ModelRegistry, RegisteredModel) {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("litevision-cache-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: cache) }
        var registry = try ModelRegistry.bundled(cacheDirectory: cache)
        registry.mirrorDirectory = nil
        var model = try registry.model(named: "flowers")
        model.url = url
        registry.models = [model]
        return (registry, model)
    }

    func flowers() throws -> Data {
        let model = try ModelRegistry.bundled().model(named: "flowers")
        return try Data(contentsOf: Paths.shared.appendingPathComponent("models/\(model.file)"))
    }

    func testADownloadIsVerifiedAndAPartialOneResumes() throws {
        let server = try LocalHTTPServer(serving: try flowers(), as: "flowers.tflite")
        defer { server.stop() }
        let (registry, model) = try registry(downloading: "http://127.0.0.1:\(server.port)/flowers.tflite")
        var progress: [Int] = []
        let path = try registry.fetch(model) { done, _ in progress.append(done) }
        XCTAssertEqual(progress.last, model.size)
        XCTAssertEqual(SHA256.hex(of: [UInt8](try Data(contentsOf: path))), model.sha256)
        XCTAssertEqual(server.ranges, [nil])
        try registry.remove(model)

        try flowers().prefix(1000).write(to: registry.partialPath(model))
        _ = try registry.fetch(model)
        XCTAssertEqual(SHA256.hex(of: [UInt8](try Data(contentsOf: registry.cachedPath(model)))), model.sha256)
        XCTAssertEqual(server.ranges, [nil, "bytes=1000-"])
    }

    func testHTTPErrorsAndOversizedBodiesFail() throws {
        let server = try LocalHTTPServer(serving: try flowers(), as: "flowers.tflite", extraBytes: 10)
        defer { server.stop() }
        let (missing, missingModel) = try registry(downloading: "http://127.0.0.1:\(server.port)/nothing-here.tflite")
        XCTAssertThrowsError(try missing.fetch(missingModel, retries: 1)) { error in
            XCTAssertTrue("\(error)".contains("HTTP 404"), "\(error)")
        }
        let (oversized, model) = try registry(downloading: "http://127.0.0.1:\(server.port)/flowers.tflite")
        XCTAssertThrowsError(try oversized.fetch(model, retries: 1)) { error in
            XCTAssertTrue("\(error)".contains("more than the registry's \(model.size) bytes"), "\(error)")
        }
        XCTAssertFalse(oversized.isDownloaded(model))
    }

    func testOnlyHTTPAndHTTPSAreDownloaded() throws {
        let (registry, model) = try registry(downloading: "file:///etc/passwd")
        XCTAssertThrowsError(try registry.fetch(model, retries: 1)) { error in
            XCTAssertTrue("\(error)".contains("downloads are http or https"), "\(error)")
        }
    }

    /// A host name that does not resolve (offline, or broken DNS; `.invalid` never resolves) is tried once, not
    /// once per retry, and the error suggests a mirror.
    func testAnUnresolvableHostFailsOnceAndSuggestsAMirror() throws {
        let (registry, model) = try registry(downloading: "https://models.litevision.invalid/flowers.tflite")
        XCTAssertThrowsError(try registry.fetch(model, retries: 3)) { error in
            let message = "\(error)"
            XCTAssertEqual(message.components(separatedBy: "download failed").count - 1, 1, "one attempt: \(message)")
            XCTAssertTrue(message.contains("Offline? Give a mirror directory") && message.contains("--mirror DIR"), message)
        }
    }
}
