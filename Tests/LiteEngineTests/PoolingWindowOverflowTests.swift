import LiteEngine
import LiteFormat
import XCTest

/// Pooling filters are the model's own options, up to `Int32.max` on a side. A window that large covers the whole
/// input and must pool it like any window that does, never trap computing how to split the rows over threads (found
/// by the model-invoke fuzzer: `outW · channels · filterH · filterW` overflowed in a quantized AVERAGE_POOL_2D).
final class PoolingWindowOverflowTests: XCTestCase {
    static let (height, width, channels) = (3, 4, 2)

    /// One pooling node with SAME padding and stride 1 over a [1, 3, 4, 2] input of `type`.
    func model(_ op: BuiltinOperator, type: TensorType, filterH: Int32, filterW: Int32) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let quantization = type == .float32 ? nil : Quantization(scale: [0.5], zeroPoint: [type == .uint8 ? 128 : 0])
        let shape = [1, Self.height, Self.width, Self.channels]
        let x = builder.addTensor(name: "x", type: type, shape: shape, quantization: quantization)
        let y = builder.addTensor(name: "y", type: type, shape: shape, quantization: quantization)
        var options = FlatTableBuilder()  // Pool2DOptions
        options[0] = .int8(0)  // padding SAME
        options[1] = .int32(1)  // stride_w
        options[2] = .int32(1)  // stride_h
        options[3] = .int32(filterW)
        options[4] = .int32(filterH)
        builder.addOperator(op, inputs: [x], outputs: [y], optionsType: 5, options: options)
        builder.inputs = [x]
        builder.outputs = [y]
        return try TFLiteModel(bytes: builder.build())
    }

    /// The output bytes of `model` at `threads` threads, on an input of varied values.
    func run(_ model: TFLiteModel, threads: Int) throws -> [UInt8] {
        let interpreter = try Interpreter(model: model, options: Interpreter.Options(threads: threads))
        let input = try interpreter.input(at: 0)
        if input.type == .float32 {
            try interpreter.copy((0..<input.elementCount).map { Float(($0 * 7) % 11) - 3.5 }, toInputAt: 0)
        } else {
            let bytes = (0..<input.elementCount).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            try bytes.withUnsafeBytes { try interpreter.copy($0, toInputAt: 0) }
        }
        try interpreter.invoke()
        let output = try interpreter.output(at: 0)
        if output.type == .float32 {
            return output.toArray(of: Float.self).flatMap { withUnsafeBytes(of: $0.bitPattern, Array.init) }
        }
        return output.toArray(of: UInt8.self)
    }

    /// A filter of `Int32.max` on each side gives what a filter just covering the whole input from every output
    /// position gives (2·size + 1, whose SAME padding is in range for LiteRT too).
    func testAWindowOfInt32MaxPoolsTheWholeInput() throws {
        let cases: [(BuiltinOperator, TensorType)] = [
            (.averagePool2d, .uint8), (.averagePool2d, .int8), (.averagePool2d, .float32),
            (.maxPool2d, .uint8), (.maxPool2d, .int8), (.maxPool2d, .float32), (.l2Pool2d, .float32),
        ]
        for (op, type) in cases {
            let covering = try run(model(op, type: type, filterH: Int32(2 * Self.height + 1), filterW: Int32(2 * Self.width + 1)), threads: 1)
            for threads in [1, 2] {
                for (filterH, filterW) in [(Int32.max, Int32.max), (Int32.max, 1), (1, Int32.max)] {
                    let huge = try run(model(op, type: type, filterH: filterH, filterW: filterW), threads: threads)
                    if filterH == filterW {
                        XCTAssertEqual(huge, covering, "\(op) \(type), \(threads) threads")
                    } else {
                        XCTAssertEqual(huge.count, covering.count, "\(op) \(type), filter \(filterH)x\(filterW)")
                    }
                }
            }
        }
    }
}
