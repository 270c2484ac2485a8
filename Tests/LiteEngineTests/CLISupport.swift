import Foundation
import XCTest

/// Running the built `vision-cli` from a test: its arguments, the exit status expected, its output.
extension XCTestCase {
    @discardableResult
    func cli(_ arguments: [String], expectStatus status: Int32 = 0) throws -> (out: String, err: String) {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile(), errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = (String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
        XCTAssertEqual(process.terminationStatus, status, "vision-cli \(arguments.joined(separator: " "))\n\(result.0)\n\(result.1)")
        return result
    }

    /// A new empty folder under the system's temporary directory, removed when the test ends.
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
