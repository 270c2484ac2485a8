import LiteFormat
import XCTest

final class ModelBuilderTests: XCTestCase {
    /// What the builder writes, the reader reads back field for field.
    func testRoundTrip() throws {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [1, 5, 5, 3], shapeSignature: [-1, 5, 5, 3])
        let w = builder.addConstant(name: "w", shape: [2, 3, 3, 3], values: (0..<54).map { Float($0) / 10 })
        let q = builder.addTensor(name: "q", type: .int8, shape: [2, 1], quantization: Quantization(scale: [0.5, 0.25], zeroPoint: [0, 0], quantizedDimension: 0))
        let y = builder.addTensor(name: "y", type: .float32, shape: [1, 5, 5, 2])
        var options = FlatTableBuilder()
        options[0] = .int8(Padding.same.rawValue)
        options[1] = .int32(1)
        options[2] = .int32(1)
        options[3] = .int8(FusedActivation.relu6.rawValue)
        builder.addOperator(.conv2d, version: 1, inputs: [x, w, -1], outputs: [y], optionsType: 1, options: options)
        builder.addOperator(.custom, customName: "Custom", inputs: [y], outputs: [q], customOptions: [1, 2, 3])
        builder.inputs = [x]
        builder.outputs = [y]
        let model = try TFLiteModel(bytes: builder.build())
        let graph = model.subgraphs[0]
        XCTAssertEqual(graph.tensors.map(\.name), ["x", "w", "q", "y"])
        XCTAssertEqual(graph.tensors[0].shapeSignature, [-1, 5, 5, 3])
        XCTAssertEqual(graph.tensors[2].quantization?.scale, [0.5, 0.25])
        XCTAssertEqual(model.buffers[graph.tensors[1].buffer].count, 54 * 4)
        XCTAssertEqual(Int(bitPattern: model.buffers[graph.tensors[1].buffer].baseAddress!) % 16, 0)
        XCTAssertEqual(graph.operators[0].inputs, [0, 1, -1])
        let conv = try Conv2DOptions(graph.operators[0].builtinOptions)
        XCTAssertEqual(conv.activation, .relu6)
        XCTAssertEqual(conv.strideW, 1)
        XCTAssertEqual(model.operatorCodes[graph.operators[1].opcodeIndex].customName, "Custom")
        XCTAssertEqual(graph.operators[1].customOptions.map(Array.init), [1, 2, 3])
    }
}
