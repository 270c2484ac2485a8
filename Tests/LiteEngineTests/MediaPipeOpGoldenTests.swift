import Foundation
@testable import LiteEngine
import LiteFormat
import XCTest

/// MediaPipe's custom ops (Convolution2DTransposeBias, MaxPoolingWithArgmax2D, MaxUnpooling2D,
/// Landmarks2TransformMatrix, TransformTensorBilinear, TransformLandmarks) on small models made by
/// tools/make_mediapipe_op_goldens.py, compared with MediaPipe's own CPU inference of them (committed goldens).
final class MediaPipeOpGoldenTests: XCTestCase {
    struct Entry: Decodable {
        let ops: [String]
        let inputs: Int
        let outputs: Int
    }

    static let folder = TestPaths.goldens.appendingPathComponent("mediapipe_ops")
    static let opNames = ["Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D",
                          "Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks"]

    func cases() throws -> [(String, Entry)] {
        let url = Self.folder.appendingPathComponent("manifest.json")
        let manifest = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: url))
        XCTAssertGreaterThanOrEqual(manifest.count, 20, "the manifest lost cases")
        return manifest.sorted { $0.key < $1.key }
    }

    func check(_ name: String, _ entry: Entry, threads: Int) throws {
        let folder = Self.folder.appendingPathComponent(name)
        let inputs = try (0..<entry.inputs).map { try NumPyArray(contentsOf: folder.appendingPathComponent("input_\($0).npy").path) }
        let outputs = try runModel(folder.appendingPathComponent("model.tflite").path, inputs: inputs, options: .init(threads: threads))
        XCTAssertEqual(outputs.count, entry.outputs, name)
        for i in 0..<min(outputs.count, entry.outputs) {
            let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
            assertClose(outputs[i], reference, "\(name) output \(i)")
        }
    }

    func testEveryCaseMatchesMediaPipe() throws {
        let cases = try cases()
        for (name, entry) in cases {
            do { try check(name, entry, threads: 1) } catch { XCTFail("\(name) (\(entry.ops.joined(separator: ", "))): \(error)") }
        }
        let covered = Set(cases.flatMap(\.1.ops))
        XCTAssertEqual(covered, Set(Self.opNames), "every MediaPipe op has goldens")
    }

    /// The kernels that split their rows over threads give the same results with four.
    func testEveryCaseMatchesMediaPipeOnFourThreads() throws {
        for (name, entry) in try cases() {
            do { try check(name, entry, threads: 4) } catch { XCTFail("\(name), 4 threads: \(error)") }
        }
    }

    /// Registered by their custom names at the versions MediaPipe's CPU op resolver registers (the landmark and
    /// transform ops at version 2 only: version 1 has other semantics).
    func testRegisteredAtMediaPipesVersions() {
        for name in Self.opNames {
            let version = name.hasPrefix("Transform") || name.hasPrefix("Landmarks") ? 2 : 1
            XCTAssertTrue(Interpreter.supports(OperatorCode(builtin: .custom, customName: name, version: version)), name)
            XCTAssertFalse(Interpreter.supports(OperatorCode(builtin: .custom, customName: name, version: version == 2 ? 1 : 2)), name)
        }
    }

    /// A one-node model of a MediaPipe op on a [1, 4, 4, 2] float input, its output shaped by the kernel.
    func singleOpModel(_ name: String, version: Int = 1, inputs: Int = 1, outputs: Int = 1, options: [UInt8]?) throws -> Interpreter {
        var builder = ModelBuilder()
        let ins = (0..<inputs).map { builder.addTensor(name: "x\($0)", type: .float32, shape: [1, 4, 4, 2]) }
        let outs = (0..<outputs).map { builder.addTensor(name: "y\($0)", type: .float32, shape: [1, 4, 4, 2]) }
        builder.addOperator(.custom, customName: name, version: version, inputs: ins, outputs: outs, customOptions: options)
        builder.inputs = ins
        builder.outputs = outs
        return try Interpreter(model: TFLiteModel(bytes: builder.build()))
    }

    static func int32s(_ values: [Int32]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } }

    /// Options a model could get wrong are refused when it loads, not read past or divided by.
    func testMalformedOptionsAreRefused() throws {
        // TfLitePoolParams: padding, stride w, h, filter w, h, activation.
        let pool = Self.int32s([1, 2, 2, 2, 2, 0])
        let interpreter = try singleOpModel("MaxPoolingWithArgmax2D", outputs: 2, options: pool)
        try interpreter.allocateTensors()
        XCTAssertEqual(try interpreter.output(at: 1).shape, [1, 2, 2, 2])
        XCTAssertThrowsError(try singleOpModel("MaxPoolingWithArgmax2D", outputs: 2, options: Array(pool.prefix(12))).allocateTensors(), "too short")
        XCTAssertThrowsError(try singleOpModel("MaxPoolingWithArgmax2D", outputs: 2, options: Self.int32s([0, 2, 2, 2, 2, 0])).allocateTensors(), "padding unknown")
        XCTAssertThrowsError(try singleOpModel("MaxUnpooling2D", inputs: 2, options: Self.int32s([1, 0, 2, 2, 2, 0])).allocateTensors(), "stride 0")
        XCTAssertThrowsError(try singleOpModel("Convolution2DTransposeBias", inputs: 3, options: nil).allocateTensors(), "no options")
        XCTAssertThrowsError(try singleOpModel("TransformTensorBilinear", version: 2, inputs: 2, options: [1, 2, 3]).allocateTensors(), "not a FlexBuffer map")
    }
}
