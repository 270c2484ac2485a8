import Foundation
import XCTest

/// The model cache as processes see it: several `vision-cli` processes fetching one model at once, and a cache on a
/// full disk (a 1 MiB tmpfs in a private mount namespace, which needs `unshare` with mount rights: root here).
final class ModelCacheFaultTests: XCTestCase {
    let mirror = TestPaths.models.path

    func shell(_ script: String) throws -> (status: Int32, out: String, err: String) {
        let result = try runChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        return (result.status, result.out, result.err)
    }

    /// Four processes fetch one model into an empty cache at once, three times over: every one succeeds with the
    /// verified file, and no partial file is left.
    func testProcessesFetchingOneModelAtOnce() throws {
        for round in 0..<3 {
            let cache = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: cache) }
            let fetch = "'\(CLITests.binary.path)' models fetch birds --mirror '\(mirror)' --cache-dir '\(cache.path)'"
            let script = (0..<4).map { "(\(fetch) > '\(cache.path)/out\($0)' 2>&1; echo $? > '\(cache.path)/status\($0)') &" }.joined(separator: "\n") + "\nwait"
            _ = try shell(script)
            for k in 0..<4 {
                let status = try String(contentsOf: cache.appendingPathComponent("status\(k)"), encoding: .utf8)
                let out = try String(contentsOf: cache.appendingPathComponent("out\(k)"), encoding: .utf8)
                XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "0", "round \(round) process \(k): \(out)")
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
            XCTAssertFalse(names.contains { $0.hasSuffix(".partial") }, "\(names)")
            XCTAssertEqual(names.filter { $0.hasSuffix(".tflite") }.count, 1, "\(names)")
        }
    }

    /// A cache on a full disk: the fetch fails with the system's reason and exit status 3, no file appears under the
    /// model's final name, and a later fetch with room succeeds.
    func testAFullDiskLeavesNoFileUnderTheFinalName() throws {
        let cache = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        let script = """
            mount -t tmpfs -o size=1m none '\(cache.path)' || exit 90
            '\(CLITests.binary.path)' models fetch birds --mirror '\(mirror)' --cache-dir '\(cache.path)'
            echo "status $?"
            ls -A '\(cache.path)'
            """
        let scriptFile = FileManager.default.temporaryDirectory.appendingPathComponent("full-disk-\(UUID().uuidString).sh")
        defer { try? FileManager.default.removeItem(at: scriptFile) }
        try Data(script.utf8).write(to: scriptFile)
        var result = try shell("unshare --mount sh '\(scriptFile.path)' || unshare --mount --map-root-user sh '\(scriptFile.path)'")
        XCTAssertTrue(result.out.contains("status 3"), result.out + result.err)
        XCTAssertTrue(result.err.contains("cannot write") && result.err.contains("No space left on device"), result.out + result.err)
        XCTAssertFalse(result.err.contains("NSCocoaErrorDomain") || result.err.contains("download failed"), "no retries or downloads on a full disk: \(result.err)")
        let listing = result.out.split(separator: "\n").drop { !$0.hasPrefix("status") }.dropFirst()
        XCTAssertFalse(listing.contains { $0.hasSuffix(".tflite") }, "no file under the final name: \(listing)")
        result = try shell("'\(CLITests.binary.path)' models fetch birds --mirror '\(mirror)' --cache-dir '\(cache.path)'")
        XCTAssertEqual(result.status, 0, result.err)
    }
}
