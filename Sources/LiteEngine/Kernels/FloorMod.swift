import Foundation

/// FLOOR_MOD: x − ⌊x / y⌋·y with broadcasting, the result taking the divisor's sign: the truncated remainder (`fmodf`
/// for float32, `%` for int32), plus y when it is non-zero and its sign differs from y's (TFLite's FloorMod). An
/// int32 zero divisor is an error when the node runs.
final class FloorMod: NumericBinaryElementwise {
    override func run(_ context: RunContext) throws {
        if node.outputs[0].type == .float32 {
            return try compute(Float.self) { x, y in
                let remainder = fmodf(x, y)
                return remainder != 0 && (y < 0) != (remainder < 0) ? remainder + y : remainder
            }
        }
        try compute(Int32.self) { x, y in
            guard y != 0 else { throw KernelError.invalid("FLOOR_MOD of int32 by zero") }
            let remainder = x.remainderReportingOverflow(dividingBy: y).partialValue
            return remainder != 0 && (y < 0) != (remainder < 0) ? remainder &+ y : remainder
        }
    }
}
