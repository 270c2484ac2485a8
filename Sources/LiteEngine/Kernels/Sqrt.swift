import Foundation

/// SQRT: square root (NaN below 0). int8 and int16 as TFLite's elementwise.cc, tabulated per stored value:
/// `trunc(sqrt(in_scale · (x − zp_in)) / out_scale) + zp_out` (truncated toward zero, not rounded), clamped; a stored
/// value below the zero point (a negative input) is an error when the node runs, as in LiteRT.
final class Sqrt: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.squareRoot() }

    /// The smallest stored value the table is defined for (the input zero point).
    var smallestValid: Int32 = .min

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard input.type == .int8 || input.type == .int16 else { return try super.prepare() }
        guard output.type == input.type else { throw KernelError.unsupported("SQRT of \(input.type) into \(output.type)") }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let (low, high): (Int32, Int32) = input.type == .int8 ? (-128, 127) : (-32768, 32767)
        smallestValid = qi.zeroPoint
        lookupTable = QuantizedLookupTable(type: input.type) { x in
            let root = (qi.scale * Float(x - qi.zeroPoint)).squareRoot() / qo.scale
            // Any root from 1e9 on clamps to `high` below, and Int32 holds every smaller one.
            let steps = root.isFinite && root < 1e9 ? Int32(root.rounded(.towardZero)) : high
            return min(max(steps &+ qo.zeroPoint, low), high)
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        if lookupTable != nil {
            let input = node.inputs[0]!
            for i in 0..<input.elementCount {
                let stored = input.type == .int8 ? Int32(input.pointer(Int8.self)[i]) : Int32(input.pointer(Int16.self)[i])
                guard stored >= smallestValid else { throw KernelError.invalid("SQRT of a negative value (stored \(stored), zero point \(smallestValid))") }
            }
        }
        if runLookupTable() { return }
        compute(context.threads, Sqrt.self)
    }
}
