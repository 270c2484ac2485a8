import Foundation

/// RSQRT: 1 / sqrt(x). int8 as TFLite's elementwise.cc, tabulated per stored value: `v = x − zp_in`; v = 0 gives 127;
/// otherwise 1/√v from gemmlowp's fixed-point inverse square root (``IntegerLSTM/inverseSqrtMultiplier(_:)``),
/// taken to an integer with 20 fractional bits, then rescaled by `1 / (√input_scale · output_scale)` (the square
/// root and product in float, as TFLite) plus `zp_out`, clamped. A stored value below the zero point (a negative
/// input) is an error when the node runs, as in LiteRT. int16 (16x8 models, zero points 0): TFLite's 513-entry
/// interpolated table of `1 / sqrtf(x)` whose function is the output's largest value at zero; a negative stored value
/// is an error when the node runs, as in LiteRT.
final class Rsqrt: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { 1 / x.squareRoot() }

    /// The smallest stored int8 value the table is defined for (the input zero point).
    var smallestValid: Int8 = -128

    /// Fractional bits of the intermediate 1/√v (TFLite's kShift).
    static let fractionBits = 20

    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        try Int16Activations.expectSymmetric(input, output)
        let largest = 32767 * (try QuantizedTensorInfo(output).scale)
        return try Int16Activations.interpolated(input: input, output: output) { $0 <= 0 ? largest : 1 / sqrtf($0) }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard input.type == .int8 else { return try super.prepare() }
        guard output.type == .int8 else { throw KernelError.unsupported("RSQRT of int8 into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(1 / Double(sqrtf(qi.scale) * qo.scale))
        guard shift - Self.fractionBits <= 30 else { throw KernelError.unsupported("RSQRT rescale from scale \(qi.scale) to \(qo.scale)") }
        let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
        smallestValid = Int8(clamping: inputZero)
        lookupTable = QuantizedLookupTable(signed: true) { x in
            let value = x - inputZero
            guard value > 0 else { return 127 }
            let (inverseMultiplier, inverseShift) = IntegerLSTM.inverseSqrtMultiplier(value)
            let fixed = IntegerArithmetic.multiplyByQuantizedMultiplier(1, inverseMultiplier, inverseShift + Self.fractionBits)
            let scaled = IntegerArithmetic.multiplyByQuantizedMultiplier(fixed, multiplier, shift - Self.fractionBits) + outputZero
            return min(max(scaled, -128), 127)
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        if let lookupTable, node.inputs[0]!.type == .int16 {
            let input = node.inputs[0]!
            if let negative = UnsafeBufferPointer(start: input.pointer(Int16.self), count: input.elementCount).first(where: { $0 < 0 }) {
                throw KernelError.invalid("RSQRT of a negative value (stored \(negative))")
            }
            lookupTable.apply(input, node.outputs[0])
            return
        }
        if let lookupTable {
            let input = node.inputs[0]!
            let values = UnsafeBufferPointer(start: input.data!.assumingMemoryBound(to: Int8.self), count: input.elementCount)
            if let negative = values.first(where: { $0 < smallestValid }) {
                throw KernelError.invalid("RSQRT of a negative value (stored \(negative), zero point \(smallestValid))")
            }
            lookupTable.apply(input, node.outputs[0])
            return
        }
        compute(context.threads, Rsqrt.self)
    }
}
