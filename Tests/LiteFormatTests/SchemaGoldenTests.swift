import Foundation
import LiteFormat
import XCTest

/// Every model in ../shared/models read by our FlatBuffer reader and compared with what LiteRT's own reader
/// reports (tools/make_schema_goldens.py): ops in node order, and every tensor's name, shape, signature,
/// dtype and quantization.
final class SchemaGoldenTests: XCTestCase {
    struct Model: Decodable {
        struct TensorInfo: Decodable {
            let index: Int
            let name: String
            let shape: [Int]
            let signature: [Int]
            let dtype: String
            let scales: Int
            let scale: Float?
            let zero_point: Int64?
            let quantized_dimension: Int
        }
        let ops: [String]
        let tensors: [TensorInfo]
        let inputs: [Int]
        let outputs: [Int]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryModelReadsAsLiteRTReadsIt() throws {
        let goldens = try JSONDecoder().decode([String: Model].self, from: Data(contentsOf: Self.root.appendingPathComponent("Tests/LiteFormatTests/Goldens/models.json")))
        XCTAssertGreaterThanOrEqual(goldens.count, 19)
        let numpyNames: [TensorType: String] = [.float32: "float32", .int32: "int32", .uint8: "uint8", .int8: "int8", .int64: "int64",
                                                 .int16: "int16", .float16: "float16", .bool: "bool"]
        for (relative, expected) in goldens.sorted(by: { $0.key < $1.key }) {
            let path = Self.root.appendingPathComponent("../shared/models/\(relative)").standardized.path
            let model = try TFLiteModel(path: path)
            let graph = model.subgraphs[0]
            let ops = graph.operators.map { op -> String in
                let code = model.operatorCodes[op.opcodeIndex]
                return code.builtin == .custom ? (code.customName ?? "") : code.builtin.description
            }
            XCTAssertEqual(ops, expected.ops, relative)
            XCTAssertEqual(graph.inputs, expected.inputs, relative)
            XCTAssertEqual(graph.outputs, expected.outputs, relative)
            // LiteRT appends tensors of its own (op temporaries); the file's come first.
            XCTAssertLessThanOrEqual(graph.tensors.count, expected.tensors.count, relative)
            for (tensor, reference) in zip(graph.tensors, expected.tensors) {
                let label = "\(relative) tensor \(reference.index)"
                XCTAssertEqual(tensor.name, reference.name, label)
                XCTAssertEqual(tensor.shape, reference.shape, label)
                XCTAssertEqual(tensor.shapeSignature, reference.signature, label)
                XCTAssertEqual(numpyNames[tensor.type], reference.dtype, label)
                XCTAssertEqual(tensor.quantization?.scale.count ?? 0, reference.scales, label)
                XCTAssertEqual(tensor.quantization?.scale.first, reference.scale, label)
                XCTAssertEqual(tensor.quantization?.zeroPoint.first, reference.zero_point, label)
                if reference.scales > 1 { XCTAssertEqual(tensor.quantization?.quantizedDimension, reference.quantized_dimension, label) }
            }
        }
    }
}
