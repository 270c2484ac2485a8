import Foundation
import XCTest

/// Scale-out on Apache Spark (Docs/batch.md): tools/spark_classify.py pipes 1,000 photo paths through
/// `vision-cli classify --paths-from - --jsonl` with `RDD.pipe` on `local[2]`, joins the records back by path and
/// compares them with a single-process run. PySpark comes from tools/setup.sh (into .venv); Java 17 from the machine.
final class SparkTests: XCTestCase {
    func testRDDPipeOverAThousandPhotosMatchesASingleProcess() throws {
        let python = TestPaths.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return XCTFail("\(python.path) is missing: run tools/setup.sh") }
        let process = Process()
        process.executableURL = python
        process.arguments = [TestPaths.packageRoot.appendingPathComponent("tools/spark_classify.py").path, "--cli", CLITests.binary.path,
                             "--count", "1000", "--mirror", TestPaths.models.path]
        // Spark's progress goes to stderr: into a file, so that neither pipe can fill while the other is read.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("spark-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let outText = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 0, outText + String(errText.suffix(3000)))
        XCTAssertEqual(outText.trimmingCharacters(in: .whitespacesAndNewlines), "identical", outText)
        XCTAssertTrue(errText.contains("1000 photos, 1000 joined records"), String(errText.suffix(2000)))
    }
}
