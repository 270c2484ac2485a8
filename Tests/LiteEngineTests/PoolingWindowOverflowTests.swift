import LiteEngine
import LiteFormat
import XCTest

/// Pooling filters are the model's own options, up to `Int32.max` on a side. A window that large covers the whole
/// input and must pool it like any window that does, never trap computing how to split the rows over threads (found
/// by the model-invoke fuzzer: `outW · channels · filterH · filterW` overflowed in a quantized AVERAGE_POOL_2D).
final class PoolingWindowOverflowTests: XCTestCase {
    static let (height, width, channels) = (3, 4, 2)

    /// One pooling node with stride 1 over an input of `shape` (by default [1, 3, 4, 2]) of `type`, SAME padding unless
    /// `valid`.
    func model(_ op: BuiltinOperator, type: TensorType, filterH: Int32, filterW: Int32,
               shape: [Int] = [1, height, width, channels], valid: Bool = false) throws -> TFLiteModel {
        var builder = ModelBuilder()
        let quantization = type == .float32 ? nil : Quantization(scale: [0.5], zeroPoint: [type == .uint8 ? 128 : 0])
        let outputShape = valid ? [shape[0], shape[1] - Int(filterH) + 1, shape[2] - Int(filterW) + 1, shape[3]] : shape
        let x = builder.addTensor(name: "x", type: type, shape: shape, quantization: quantization)
        let y = builder.addTensor(name: "y", type: type, shape: outputShape, quantization: quantization)
        var options = FlatTableBuilder()  // Pool2DOptions
        options[0] = .int8(valid ? 1 : 0)  // padding: SAME 0, VALID 1
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

    /// A filter of `Int32.max` on a side gives what a filter just covering the input along that side from every output
    /// position gives (2·size + 1, whose SAME padding is in range for LiteRT too).
    func testAWindowOfInt32MaxPoolsTheWholeInput() throws {
        let cases: [(BuiltinOperator, TensorType)] = [
            (.averagePool2d, .uint8), (.averagePool2d, .int8), (.averagePool2d, .float32),
            (.maxPool2d, .uint8), (.maxPool2d, .int8), (.maxPool2d, .float32), (.l2Pool2d, .float32),
        ]
        let (coveringH, coveringW) = (Int32(2 * Self.height + 1), Int32(2 * Self.width + 1))
        for (op, type) in cases {
            for (filterH, filterW, sameAsH, sameAsW) in [(Int32.max, Int32.max, coveringH, coveringW), (Int32.max, 1, coveringH, 1),
                                                         (1, Int32.max, 1, coveringW)] {
                let covering = try run(model(op, type: type, filterH: sameAsH, filterW: sameAsW), threads: 1)
                for threads in [1, 2] {
                    let huge = try run(model(op, type: type, filterH: filterH, filterW: filterW), threads: threads)
                    XCTAssertEqual(huge, covering, "\(op) \(type), filter \(filterH)x\(filterW), \(threads) threads")
                }
            }
        }
    }

    /// An int16 average whose sum is 1000 below `Int32.max` rounds in 64 bits: `sum + count / 2` does not fit 32 (LiteRT's
    /// int32 arithmetic overflows there), and the result is the exact rounded mean.
    func testAnInt16AverageNearInt32MaxRounds() throws {
        let (height, width) = (257, 256)
        // 65,792 values: 254 zeros, one 31,768 and the rest 32,767, summing to Int32.max - 1000.
        var values = [Int16](repeating: 32767, count: height * width)
        for i in 0..<254 { values[i] = 0 }
        values[254] = 31768
        let sum = values.reduce(Int64(0)) { $0 + Int64($1) }
        XCTAssertEqual(sum, Int64(Int32.max) - 1000)
        let model = try model(.averagePool2d, type: .int16, filterH: Int32(height), filterW: Int32(width), shape: [1, height, width, 1], valid: true)
        let interpreter = try Interpreter(model: model)
        try values.withUnsafeBytes { try interpreter.copy($0, toInputAt: 0) }
        try interpreter.invoke()
        let count = Int64(height * width)
        XCTAssertEqual(try interpreter.output(at: 0).toArray(of: Int16.self), [Int16((sum + count / 2) / count)])
    }
}
