import LiteEngine
import LiteFormat
import XCTest

/// STRIDED_SLICE's shrink-axis mask keeps one element of an axis: an index that clamping moves outside the dimension
/// is an error, never a read past the input (found by the model-invoke fuzzer, in a slice folded at planning).
final class StridedSliceShrinkAxisTests: XCTestCase {
    /// One STRIDED_SLICE of a 3-float vector with `shrink_axis_mask` 1; `x` is the model's input, or a constant when
    /// `constantInput` (then the slice runs while the interpreter plans).
    func model(begin: Int32, stride: Int32, constantInput: Bool) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let x = constantInput
            ? builder.addConstant(name: "x", shape: [3], values: [10, 20, 30] as [Float])
            : builder.addTensor(name: "x", type: .float32, shape: [3])
        let b = builder.addConstant(name: "begin", shape: [1], values: [begin])
        let e = builder.addConstant(name: "end", shape: [1], values: [begin &+ 1])
        let s = builder.addConstant(name: "strides", shape: [1], values: [stride])
        let y = builder.addTensor(name: "y", type: .float32, shape: [])
        var options = FlatTableBuilder()
        options[4] = .int32(1)  // shrink_axis_mask
        builder.addOperator(.stridedSlice, inputs: [x, b, e, s], outputs: [y], optionsType: 32, options: options)
        builder.inputs = constantInput ? [] : [x]
        builder.outputs = [y]
        return try TFLiteModel(bytes: builder.build())
    }

    func testAShrunkIndexPastTheDimensionIsAnError() throws {
        for constantInput in [false, true] {
            for (begin, stride) in [(3, 1), (7, 2), (-4, -1), (Int32.max, 1)] as [(Int32, Int32)] {
                XCTAssertThrowsError(try Interpreter(model: try model(begin: begin, stride: stride, constantInput: constantInput)),
                                     "begin \(begin), stride \(stride), constant input \(constantInput)") { error in
                    XCTAssertTrue("\(error)".contains("shrink axis"), "\(error)")
                }
            }
        }
    }

    /// A shrunk axis with a negative stride still keeps the element at its index.
    func testANegativeStrideKeepsTheShrunkElement() throws {
        for (begin, expected) in [(1, 20), (-1, 30), (0, 10)] as [(Int32, Float)] {
            let interpreter = try Interpreter(model: try model(begin: begin, stride: -1, constantInput: false))
            try interpreter.copy([10, 20, 30] as [Float], toInputAt: 0)
            try interpreter.invoke()
            XCTAssertEqual(try interpreter.output(at: 0).shape, [])
            XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Float.self), [expected], "begin \(begin)")
        }
    }
}
