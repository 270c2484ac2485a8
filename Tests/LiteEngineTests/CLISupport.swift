import Foundation
import XCTest

/// What a child process left when it ended: its exit status (or the signal that ended it) and its two outputs.
struct ChildProcessResult {
    let status: Int32
    let reason: Process.TerminationReason
    let out: String
    let err: String
}

/// Running the built `vision-cli` (or any program) from a test: its arguments, the exit status expected, its output.
extension XCTestCase {
    /// Runs `executable` to its end, reading both outputs while it runs (a full pipe would stall it). `environment`
    /// entries are added to this process's environment (or, not `inheritingEnvironment`, to an empty one); a nil
    /// value removes the variable.
    func runChildProcess(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:],
                         inheritingEnvironment: Bool = true, directory: URL? = nil) throws -> ChildProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var merged = inheritingEnvironment ? ProcessInfo.processInfo.environment : [:]
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile(), errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ChildProcessResult(status: process.terminationStatus, reason: process.terminationReason,
                                  out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    @discardableResult
    func cli(_ arguments: [String], expectStatus status: Int32 = 0) throws -> (out: String, err: String) {
        let result = try runChildProcess(CLITests.binary, arguments)
        XCTAssertEqual(result.status, status, "vision-cli \(arguments.joined(separator: " "))\n\(result.out)\n\(result.err)")
        return (result.out, result.err)
    }

    /// A new empty folder under the system's temporary directory, removed when the test ends.
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
