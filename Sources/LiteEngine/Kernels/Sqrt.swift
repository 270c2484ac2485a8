import Foundation

/// SQRT: square root (NaN below 0). int8 and int16 as TFLite's elementwise.cc, tabulated per stored value:
/// `trunc(sqrt(in_scale · (x − zp_in)) / out_scale) + zp_out` (truncated toward zero, not rounded), clamped; a stored
/// value below the zero point (a negative input) is an error when the node runs, as in LiteRT.
final class Sqrt: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.squareRoot() }

    override func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        guard input.type == .int8 || input.type == .int16 else { return try super.makePlan(input: input, output: output) }
        guard output.type == input.type else { throw KernelError.unsupported("SQRT of \(input.type) into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let (low, high): (Int32, Int32) = input.type == .int8 ? (-128, 127) : (-32768, 32767)
        let table = QuantizedLookupTable(type: input.type) { x in
            let root = (qi.scale * Float(x - qi.zeroPoint)).squareRoot() / qo.scale
            // Any root from 1e9 on clamps to `high` below, and Int32 holds every smaller one.
            let steps = root.isFinite && root < 1e9 ? Int32(root.rounded(.towardZero)) : high
            return min(max(steps &+ qo.zeroPoint, low), high)
        }
        return .table(table, definedFrom: qi.zeroPoint)
    }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Sqrt.self)
    }
}
