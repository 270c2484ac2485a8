import Foundation
import LiteFormat
import XCTest

/// Hostile inputs end in a typed error within bounded memory and time: each case runs `vision-cli` in a child process
/// and measures that child's peak resident memory (Docs/hardening.md lists the measurements).
final class HostileInputResourceTests: XCTestCase {
    /// Peak resident memory allowed to a case: the CLI with a small model loaded is about 40 MB (wider under a
    /// sanitizer).
    static let memoryBound = (200 << 20) * SanitizedBuild.boundFactor
    /// Wall time allowed to a case; generous because the CI's 2 cores are shared (each takes well under 2 s alone).
    static let timeBound = 30.0 * Double(SanitizedBuild.boundFactor)

    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs the CLI on a case, expecting exit status `status` (1: the inputs failed; 2 and 3 for usage and model
    /// errors) with `message` on standard error, within the memory and time bounds.
    @discardableResult
    private func expectBounded(_ name: String, _ arguments: [String], status: Set<Int32>, message: String,
                               memoryBound: Int = HostileInputResourceTests.memoryBound,
                               file: StaticString = #filePath, line: UInt = #line) throws -> MeasuredRun {
        let run = try MeasuredRun.run(CLITests.binary.path, arguments, timeLimit: Self.timeBound)
        print(String(format: "hostile input %@: exit %@, peak RSS %.1f MB, %.2f s", name, run.exitStatus.map { "\($0)" } ?? "signal \(run.signal!)",
                     Double(run.peakResidentBytes) / 1_048_576, run.seconds))
        XCTAssertTrue(run.exitStatus.map(status.contains) ?? false, "\(name): exit \(String(describing: run.exitStatus)), \(run.standardError)",
                      file: file, line: line)
        XCTAssertTrue(message.isEmpty || run.standardError.contains(message), "\(name): \(run.standardError)", file: file, line: line)
        XCTAssertLessThan(run.peakResidentBytes, memoryBound, name, file: file, line: line)
        XCTAssertLessThan(run.seconds, Self.timeBound, name, file: file, line: line)
        return run
    }

    private func write(_ bytes: some Sequence<UInt8>, _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    // MARK: Inks

    /// Five million `[x, y]` points (30 MB, under the 32 MiB file limit): refused at the 200,001st point.
    func testAnInkOfMillionsOfPoints() throws {
        var json = Data("{\"strokes\": [[".utf8)
        json.append(contentsOf: repeatElement(Array("[1,2],".utf8), count: 5_000_000).joined())
        json.append(contentsOf: Array("[1,2]]]}".utf8))
        let path = try write(json, "points.json")
        try expectBounded("ink of 5,000,000 [x, y] points", ["ink", path], status: [1], message: "more than 200000 points")
    }

    /// The same in the `{"x", "y"}` form, which cost Foundation's parser 6.6 GB.
    func testAnInkOfMillionsOfObjectPoints() throws {
        var json = Data("{\"strokes\": [[".utf8)
        json.append(contentsOf: repeatElement(Array("{\"x\":1,\"y\":2},".utf8), count: 2_000_000).joined())
        json.append(contentsOf: Array("{\"x\":1,\"y\":2}]]}".utf8))
        let path = try write(json, "objects.json")
        try expectBounded("ink of 2,000,000 {x, y} points", ["ink", path], status: [1], message: "more than 200000 points")
    }

    /// A million nested arrays.
    func testJSONNestedAMillionDeep() throws {
        let path = try write(Array("{\"strokes\": ".utf8) + Array(repeating: UInt8(ascii: "["), count: 1_000_000), "deep.json")
        try expectBounded("JSON nested 1,000,000 deep", ["ink", path], status: [1], message: "nest more than 512 deep")
    }

    /// Coordinates JSON can only spell as overflowing numbers (1e999 is infinity), and NaN, which is not JSON.
    func testInfiniteAndNaNCoordinates() throws {
        let infinite = try write(Array("{\"strokes\": [[[0, 0], [1e999, 2]]]}".utf8), "infinite.json")
        try expectBounded("ink with an infinite coordinate", ["ink", infinite], status: [1], message: "stroke 0 point 1 has a coordinate (inf)")
        let nan = try write(Array("{\"strokes\": [[[0, 0], [NaN, 2]]]}".utf8), "nan.json")
        try expectBounded("ink with a NaN coordinate", ["ink", nan], status: [1], message: "not JSON")
    }

    /// A batch line of millions of points is one failed record; the batch goes on.
    func testABatchLineOfMillionsOfPoints() throws {
        var ndjson = Data("{\"strokes\": [[".utf8)
        ndjson.append(contentsOf: repeatElement(Array("[1,2],".utf8), count: 1_000_000).joined())
        ndjson.append(contentsOf: Array("[1,2]]]}\n{\"strokes\": [[[0, 0, 0], [30, 1, 100], [60, 0, 200]]]}\n".utf8))
        let path = try write(ndjson, "batch.ndjson")
        try expectBounded("batch line of 1,000,000 points", ["ink", "--batch", path, "--jsonl"], status: [1], message: "")
    }

    // MARK: Images

    /// A PNG header declaring 100,000 x 100,000 pixels, with no pixel data: refused from the header.
    func testAPNGDeclaringHugeDimensions() throws {
        let model = try TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")
        let path = try write(Self.png(width: 100_000, height: 100_000), "huge.png")
        try expectBounded("PNG declaring 100000x100000", ["classify", "--model", model, path], status: [1], message: "100000x100000")
        // Within the pixel limit but with no pixel data: a truncation error, not a 300 MB image of nothing.
        let truncated = try write(Self.png(width: 10_000, height: 10_000), "truncated.png")
        try expectBounded("PNG declaring 10000x10000, no data", ["classify", "--model", model, truncated], status: [1], message: "truncated.png")
    }

    /// A real JPEG whose frame header is rewritten to 65,500 x 65,500, with `--max-pixels 4000000`: decoded at the
    /// smallest scale (1/8, still 67 megapixels, over the limit) or refused; either way within the bounds.
    func testAJPEGDeclaringHugeDimensions() throws {
        let model = try TestPaths.model("classification/mobilenet_v1_0.25_128_quant.tflite")
        var jpeg = [UInt8](try Data(contentsOf: TestPaths.shared.appendingPathComponent("images/burger.jpg")))
        let frame = try XCTUnwrap((2..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
        jpeg.replaceSubrange((frame + 5)..<(frame + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])
        let path = try write(jpeg, "huge.jpg")
        try expectBounded("JPEG declaring 65500x65500, --max-pixels 4000000", ["classify", "--model", model, "--max-pixels", "4000000", path],
                          status: [0, 1], message: "")
    }

    // MARK: Models

    /// A model whose input and output would be 4.8 GB each, over the default 4 GiB memory limit: an error at load,
    /// before the arena is allocated.
    func testAModelWhosePlanExceedsTheMemoryLimit() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 20_000, 20_000, 3])
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 20_000, 20_000, 3])
        builder.addOperator(.relu, inputs: [x], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        let path = try write(builder.build(), "huge_plan.tflite")
        try expectBounded("model planning 9.6 GB of tensors", ["run", path, "--input", "absent.npy", "--output-dir", folder.path],
                          status: [3], message: "memory limit")
    }

    /// A constant declared as 1.2 billion floats with a 4-byte buffer: a format error, nothing allocated.
    func testAModelWhoseConstantDeclaresMoreThanItsBuffer() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 20_000, 20_000, 3])
        let weights = builder.addBuffer([0, 0, 128, 63])
        let constant = builder.addTensor(name: "c", type: .float32, shape: [1, 20_000, 20_000, 3], buffer: weights)
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 20_000, 20_000, 3])
        builder.addOperator(.add, inputs: [x, constant], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        let path = try write(builder.build(), "huge_constant.tflite")
        try expectBounded("model with a 4.8 GB constant in a 4-byte buffer", ["run", path, "--input", "absent.npy", "--output-dir", folder.path],
                          status: [3], message: "buffer holds 4 bytes")
    }

    // MARK: Helpers

    /// A PNG of the given size: its header and an empty compressed stream, no pixels.
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let emptyStream: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", emptyStream) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320) as PNG chunks use it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
