import LiteEngine
import LiteFormat
import XCTest

/// An output with no elements (a batch of zero) may still be huge along another dimension: the ops that build a table
/// per output row or column must not build one for it (a RESIZE_BILINEAR to a width of `Int32.max` would allocate
/// tens of gigabytes outside the memory limit).
final class EmptyOutputTests: XCTestCase {
    /// A resize of a [0, 2, 2, 1] float input to [1, Int32.max].
    func resizeModel(_ op: BuiltinOperator) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [0, 2, 2, 1])
        let size = builder.addConstant(name: "size", shape: [2], values: [1, Int32.max] as [Int32])
        let y = builder.addTensor(name: "y", type: .float32, shape: [0, 1, Int(Int32.max), 1])
        builder.addOperator(op, inputs: [x, size], outputs: [y])
        builder.inputs = [x]
        builder.outputs = [y]
        return try TFLiteModel(bytes: builder.build())
    }

    func testResizingABatchOfZeroToAHugeWidthDoesNothing() throws {
        for op in [BuiltinOperator.resizeBilinear, .resizeNearestNeighbor] {
            let interpreter = try Interpreter(model: try resizeModel(op))
            try interpreter.invoke()
            let output = try interpreter.output(at: 0)
            XCTAssertEqual(output.shape, [0, 1, Int(Int32.max), 1], "\(op)")
            XCTAssertEqual(output.elementCount, 0, "\(op)")
        }
    }
}
