import Foundation
import LiteEngine
import XCTest

/// Every single-op model made by tools/make_op_goldens.py, run by our engine and compared with LiteRT's outputs.
final class OpGoldenTests: XCTestCase {
    struct Entry: Decodable {
        let ops: [String]
        let inputs: Int
        let outputs: Int
    }

    func cases() throws -> [(String, Entry)] {
        let url = TestPaths.goldens.appendingPathComponent("ops/manifest.json")
        let manifest = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))
        XCTAssertGreaterThan(manifest.count, 90, "the manifest lost cases")
        return manifest.sorted { $0.key < $1.key }
    }

    func check(_ name: String, _ entry: Entry, threads: Int = 1) throws {
        let folder = TestPaths.goldens.appendingPathComponent("ops/\(name)")
        let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
        let outputs = try runModel(folder.appendingPathComponent("model.tflite").path, inputs: inputs, options: .init(threads: threads))
        XCTAssertEqual(outputs.count, entry.outputs, name)
        for i in 0..<min(outputs.count, entry.outputs) {
            let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
            assertClose(outputs[i], reference, "\(name) output \(i)")
        }
    }

    func testEveryOpMatchesLiteRT() throws {
        for (name, entry) in try cases() {
            do {
                try check(name, entry)
            } catch {
                XCTFail("\(name) (\(entry.ops.joined(separator: ", "))): \(error)")
            }
        }
    }

    func testEveryOpMatchesLiteRTWithTwoThreads() throws {
        for (name, entry) in try cases() {
            do {
                try check(name, entry, threads: 2)
            } catch {
                XCTFail("\(name) (\(entry.ops.joined(separator: ", "))): \(error)")
            }
        }
    }
}
