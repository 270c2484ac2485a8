import Foundation
import XCTest

/// `classify` over many inputs as a stream (Docs/cli.md, "Batches"): inputs from standard input or a list, records
/// written as soon as each input is done, whole lines on SIGINT, resume and shards, folders and files that are not
/// images, bounded memory.
final class BatchStreamingTests: XCTestCase {
    let photos = TestPaths.shared.appendingPathComponent("images")
    let registry = ["--mirror", TestPaths.models.path, "--max-results", "1"]
    /// A small model, so that many inputs run quickly.
    var smallModel: [String] { get throws { ["--model", try TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")] } }

    func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0)) }
    }

    var jpegs: [String] {
        get throws { try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasSuffix(".jpg") }.sorted().map { photos.appendingPathComponent($0).path } }
    }

    /// Starts vision-cli with `input` on its standard input; returns the process and its output pipe.
    func start(_ arguments: [String], input: Data = Data()) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        return (process, stdout)
    }

    /// `-` reads one image's bytes from standard input; `--paths-from -` reads paths; each record carries the input's
    /// index and path.
    func testStandardInputGivesAnImageOrPaths() throws {
        let (process, out) = try start(["classify", "-", "--jsonl"] + registry, input: try Data(contentsOf: photos.appendingPathComponent("bird.png")))
        let record = try XCTUnwrap(records(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)).first)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(record["image"] as? String, "-")
        XCTAssertEqual(record["index"] as? Int, 0)
        XCTAssertTrue("\(record)".contains("chickadee"), "\(record)")

        let paths = try jpegs
        let (lister, listed) = try start(["classify", "--paths-from", "-", "--jsonl", "--ordered", "--threads", "2"] + registry,
                                         input: Data(paths.joined(separator: "\n").utf8))
        let lines = try records(String(decoding: listed.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        lister.waitUntilExit()
        XCTAssertEqual(lister.terminationStatus, 0)
        XCTAssertEqual(lines.map { $0["image"] as? String }, paths)
        XCTAssertEqual(lines.map { $0["index"] as? Int }, Array(0..<paths.count))
    }

    /// The first record is on the pipe long before the run ends, and SIGINT ends the run after whole lines, with
    /// exit status 130.
    func testRecordsStreamAndSIGINTEndsAfterWholeLines() throws {
        let list = String(repeating: try jpegs.joined(separator: "\n") + "\n", count: 200)
        let (process, out) = try start(["classify", "--paths-from", "-", "--jsonl", "--threads", "2"] + registry + smallModel, input: Data(list.utf8))
        let started = Date()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        let firstLine = Date().timeIntervalSince(started)
        XCTAssertTrue(process.isRunning, "the first record arrived while the run was going on")
        kill(process.processIdentifier, SIGINT)
        received += out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let text = String(decoding: received, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\n"), "ends with a whole line")
        let lines = try records(text)
        XCTAssertGreaterThan(lines.count, 0)
        XCTAssertLessThan(lines.count, 2200, "stopped early")
        XCTAssertLessThan(firstLine, 30)
    }

    /// Shards cover the inputs exactly once; `--resume` skips what a previous output holds.
    func testShardsAndResume() throws {
        let photos = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: photos) }
        for path in try jpegs { try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent((path as NSString).lastPathComponent).path, withDestinationPath: path) }
        var seen: [Int] = []
        for shard in 0..<3 {
            seen += try records(cli(["classify", photos.path, "--jsonl", "--shard", "\(shard)/3"] + registry).out).compactMap { $0["index"] as? Int }
        }
        let all = try records(cli(["classify", photos.path, "--jsonl"] + registry).out)
        XCTAssertEqual(seen.sorted(), all.compactMap { $0["index"] as? Int }.sorted())
        XCTAssertEqual(Set(seen).count, seen.count, "no input in two shards")

        let outputs = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outputs) }
        let previous = outputs.appendingPathComponent("out.jsonl")
        let first = try cli(["classify", photos.path, "--jsonl", "--shard", "0/2"] + registry).out
        try Data((first + "{\"index\": 99, \"ima").utf8).write(to: previous)  // a line cut short by a crash
        let rest = try records(cli(["classify", photos.path, "--jsonl", "--resume", previous.path] + registry).out)
        let done = try records(first).compactMap { $0["image"] as? String }
        XCTAssertEqual(Set(rest.compactMap { $0["image"] as? String }).intersection(done), [])
        XCTAssertEqual(rest.count + done.count, all.count)
    }

    /// Folders: subfolders with `--recursive` (a note without), and a file that is not an image is an error record
    /// (exit status 1), not skipped in silence.
    func testFoldersRecursionAndFilesThatAreNotImages() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: photos.appendingPathComponent("bird.png"), to: sub.appendingPathComponent("bird.png"))
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let flat = try cli(["classify", folder.path, "--jsonl"] + registry, expectStatus: 1)
        XCTAssertTrue(flat.err.contains("--recursive reads subfolders"), flat.err)
        let flatRecords = try records(flat.out)
        XCTAssertEqual(flatRecords.count, 1)
        XCTAssertTrue((flatRecords[0]["error"] as? String)?.contains("not an input this command reads") ?? false, "\(flatRecords)")
        let deep = try records(cli(["classify", folder.path, "--jsonl", "--recursive", "--ordered"] + registry, expectStatus: 1).out)
        XCTAssertEqual(deep.compactMap { ($0["image"] as? NSString)?.lastPathComponent }, ["notes.txt", "bird.png"])
    }

    /// Peak memory does not grow with the number of inputs: 1,000 inputs against 100 (the child's maximum RSS).
    func testMemoryStaysBoundedWithManyInputs() throws {
        func peakRSS(_ count: Int) throws -> Int {
            let list = (0..<count).map { _ in photos.appendingPathComponent("bird.png").path }.joined(separator: "\n")
            let (process, out) = try start(["classify", "--paths-from", "-", "--jsonl", "--threads", "2"] + registry + smallModel, input: Data(list.utf8))
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").count
            process.waitUntilExit()
            XCTAssertEqual(lines, count)
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            return usage.ru_maxrss  // kilobytes; the largest of the children so far
        }
        let small = try peakRSS(100), large = try peakRSS(1000)
        XCTAssertLessThan(large, small + 16 * 1024, "peak RSS \(small) kB at 100 inputs, \(large) kB at 1,000")
    }

    /// `ink --batch -` reads NDJSON from standard input; shards split the samples by index and `--resume` skips the
    /// ones already recorded.
    func testInkBatchFromStandardInputWithShardsAndResume() throws {
        let sample = "{\"label\": \"-\", \"strokes\": [[[0, 0, 0], [30, 1, 100], [60, 0, 200]]]}"
        let input = Data(Array(repeating: sample, count: 12).joined(separator: "\n").utf8)
        let (process, out) = try start(["ink", "--batch", "-", "--jsonl"], input: input)
        let all = try records(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(all.compactMap { $0["index"] as? Int }, Array(0..<12))

        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let batch = folder.appendingPathComponent("batch.ndjson"), previous = folder.appendingPathComponent("out.jsonl")
        try input.write(to: batch)
        var shards: [Int] = []
        for shard in 0..<2 {
            shards += try records(cli(["ink", "--batch", batch.path, "--jsonl", "--shard", "\(shard)/2"]).out).compactMap { $0["index"] as? Int }
        }
        XCTAssertEqual(shards.sorted(), Array(0..<12))
        let first = try cli(["ink", "--batch", batch.path, "--jsonl", "--shard", "0/2"]).out
        try Data(first.utf8).write(to: previous)
        let rest = try records(cli(["ink", "--batch", batch.path, "--jsonl", "--resume", previous.path]).out).compactMap { $0["index"] as? Int }
        let done = try records(first).compactMap { $0["index"] as? Int }
        XCTAssertEqual((rest + done).sorted(), Array(0..<12))
        XCTAssertFalse(done.isEmpty || rest.isEmpty)
    }
}
