import Foundation
import XCTest

enum TestPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = packageRoot.appendingPathComponent("../shared").standardized
    static let models = shared.appendingPathComponent("models")
    static func image(_ name: String) throws -> Data { try Data(contentsOf: shared.appendingPathComponent("images/\(name)")) }
}

/// A `vision-server` started as a subprocess on a free port of the loopback, with ../shared/models as its mirror
/// and a fresh model cache.
final class ServerProcess {
    let process = Process()
    let port: UInt16
    private let cache: URL

    static var binary: URL {
        let bundle = Bundle(for: ServerProcess.self).bundleURL
        let candidates = [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent("vision-server") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    init(_ arguments: [String]) throws {
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("vision-server-\(UUID().uuidString)")
        process.executableURL = Self.binary
        process.arguments = ["--port", "0", "--mirror", TestPaths.models.path, "--cache-dir", cache.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = "error"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The first line says where it listens: "vision-server listening on http://127.0.0.1:PORT with N workers".
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { throw TestError("vision-server ended before listening: \(String(decoding: line, as: UTF8.self))") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = UInt16(text[range].split(separator: ":").last!) else { throw TestError("no port in \(text)") }
        self.port = port
        // Keep reading stdout so the server never blocks on a full pipe.
        handle.readabilityHandler = { if $0.availableData.isEmpty { $0.readabilityHandler = nil } }
    }

    func terminate() -> Int32 {
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: cache)
    }

    func request(_ method: String, _ path: String, body: Data = Data(), headers: [String: String] = [:]) throws -> HTTPResponse {
        try HTTPResponse.send(port: port, method: method, path: path, body: body, headers: headers)
    }
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// HTTP/1.1 over a plain socket (Connection: close), so that a test sees exactly what the server sent.
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var errorKind: String? { (json["error"] as? [String: Any])?["kind"] as? String }

    static func send(port: UInt16, method: String, path: String, body: Data, headers: [String: String]) throws -> HTTPResponse {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestError("connect to port \(port): errno \(errno)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        var allHeaders = headers
        if allHeaders["Content-Length"] == nil && (method == "POST" || !body.isEmpty) { allHeaders["Content-Length"] = String(body.count) }
        for (name, value) in allHeaders.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let request = Data(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may answer (413) and close before reading everything
            sent += n
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        guard let end = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw TestError("no HTTP response (\(received.count) bytes received)")
        }
        let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestError("bad status line \(lines[0])") }
        var responseHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            responseHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var responseBody = received[end.upperBound...]
        if let length = responseHeaders["content-length"].flatMap(Int.init), responseBody.count > length {
            responseBody = responseBody.prefix(length)
        }
        return HTTPResponse(status: status, headers: responseHeaders, body: Data(responseBody))
    }
}
