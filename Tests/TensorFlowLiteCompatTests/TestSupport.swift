import Foundation
import struct LiteEngine.NumPyArray
import TensorFlowLiteCompat
import XCTest

/// Where the tests find models and LiteRT's recorded outputs: the shared models beside the project, the model goldens
/// that tools/make_model_goldens.py writes to .goldens/models (tools/test.sh runs it first), and the committed op and
/// signature goldens of LiteEngineTests.
enum TestPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let models = packageRoot.appendingPathComponent("../shared/models").standardized
    static let modelGoldens = packageRoot.appendingPathComponent(".goldens/models")
    static let engineGoldens = packageRoot.appendingPathComponent("Tests/LiteEngineTests/Goldens")

    /// The path of a shared model, failing the test when it is missing.
    static func model(_ relative: String) throws -> String {
        let path = models.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("missing test model \(path): ../shared must sit beside the project")
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    /// The inputs LiteRT's outputs were recorded for, for model golden `name` (a missing golden is a failure).
    static func goldenInputs(_ name: String) throws -> [URL] {
        struct Entry: Decodable { let images: [String] }
        let url = modelGoldens.appendingPathComponent("manifest.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("no model goldens at \(url.path): run python3 tools/make_model_goldens.py")
            throw CocoaError(.fileNoSuchFile)
        }
        let manifest = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))
        let entry = try XCTUnwrap(manifest[name], "\(name) missing from the model goldens")
        XCTAssertGreaterThanOrEqual(entry.images.count, 5)
        return entry.images.map { modelGoldens.appendingPathComponent("\(name)/\($0)") }
    }
}

/// A .npy file's bytes as the `Data` a TensorFlowLiteSwift caller copies into a tensor.
func npyData(_ url: URL) throws -> Data {
    Data(try NumPyArray(contentsOf: url.path).bytes)
}

/// A .npy file's float32 values.
func npyFloats(_ url: URL) throws -> [Float] {
    try NumPyArray(contentsOf: url.path).floats()
}

/// The index of the largest value (the first of equal ones).
func topIndex<T: Comparable>(_ values: [T]) -> Int {
    values.indices.max { values[$0] < values[$1] || (values[$0] == values[$1] && $0 > $1) } ?? -1
}

/// max |ours - reference| <= 1e-4 * max(1, max |reference|), the engine's golden tolerance.
func assertClose(_ ours: [Float], _ reference: [Float], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(ours.count, reference.count, "\(label): count", file: file, line: line)
    let worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? 0
    let scale = max(1, reference.map(abs).max() ?? 0)
    XCTAssertLessThanOrEqual(worst, 1e-4 * scale, "\(label): differs from LiteRT by \(worst)", file: file, line: line)
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<E: Error & Equatable, T>(_ expected: E, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
        XCTAssertEqual(error as? E, expected, "threw \(error)", file: file, line: line)
    }
}

// The conversions TensorFlowLiteSwift's examples define for themselves (its API has none): typed arrays to and from
// the `Data` of a tensor.
extension Data {
    /// The bytes of `array`'s elements.
    init<T>(copyingBufferOf array: [T]) {
        self = array.withUnsafeBufferPointer(Data.init)
    }
}

extension Array {
    /// The elements stored in `data`, or nil when its size is not a whole number of them.
    init?(unsafeData data: Data) {
        guard data.count % MemoryLayout<Element>.stride == 0 else { return nil }
        self = data.withUnsafeBytes { .init($0.bindMemory(to: Element.self)) }
    }
}
