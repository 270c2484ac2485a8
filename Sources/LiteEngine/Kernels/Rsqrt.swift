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

    /// Fractional bits of the intermediate 1/√v (TFLite's kShift).
    static let fractionBits = 20

    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        try Int16Activations.expectSymmetric(input, output)
        let largest = 32767 * (try QuantizedTensorInfo(output).scale)
        return try Int16Activations.interpolated(input: input, output: output) { $0 <= 0 ? largest : 1 / sqrtf($0) }
    }

    override func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        switch input.type {
        case .int8:
            guard output.type == .int8 else { throw KernelError.unsupported("RSQRT of int8 into \(output.type)") }
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(1 / Double(sqrtf(qi.scale) * qo.scale))
            guard shift - Self.fractionBits <= 30 else { throw KernelError.unsupported("RSQRT rescale from scale \(qi.scale) to \(qo.scale)") }
            let (inputZero, outputZero) = (qi.zeroPoint, qo.zeroPoint)
            let table = QuantizedLookupTable(signed: true) { x in
                let value = x - inputZero
                guard value > 0 else { return 127 }
                let (inverseMultiplier, inverseShift) = IntegerLSTM.inverseSqrtMultiplier(value)
                let fixed = IntegerArithmetic.multiplyByQuantizedMultiplier(1, inverseMultiplier, inverseShift + Self.fractionBits)
                let scaled = IntegerArithmetic.multiplyByQuantizedMultiplier(fixed, multiplier, shift - Self.fractionBits) + outputZero
                return min(max(scaled, -128), 127)
            }
            return .table(table, definedFrom: Int32(Int8(clamping: inputZero)))
        case .int16:
            // Symmetric (zero point 0): a negative stored value is a negative real one.
            guard case .table(let table, _) = try super.makePlan(input: input, output: output) else { preconditionFailure("int16 RSQRT has a table") }
            return .table(table, definedFrom: 0)
        default:
            return try super.makePlan(input: input, output: output)
        }
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Rsqrt.self)
    }
}
