import Foundation

/// FLOOR_MOD: x − ⌊x / y⌋·y with broadcasting, the result taking the divisor's sign: the truncated remainder (`fmodf`
/// for float32, `%` for int32 and int64), plus y when it is non-zero and its sign differs from y's (TFLite's
/// FloorMod). An integer zero divisor is an error when the node runs. The one remainder that overflows, the type's
/// minimum modulo −1 (a crash in LiteRT), is 0 here.
final class FloorMod: NumericBinaryElementwise {
    override class var takesInt64: Bool { true }

    override func run(_ context: RunContext) throws {
        switch node.outputs[0].type {
        case .float32:
            try compute(Float.self) { x, y in
                let remainder = fmodf(x, y)
                return remainder != 0 && (y < 0) != (remainder < 0) ? remainder + y : remainder
            }
        case .int32: try computeIntegers(Int32.self)
        default: try computeIntegers(Int64.self)
        }
    }

    private func computeIntegers<T: FixedWidthInteger & SignedInteger>(_: T.Type) throws {
        let type = node.outputs[0].type
        try compute(T.self) { x, y in
            guard y != 0 else { throw KernelError.invalid("FLOOR_MOD of \(type) by zero") }
            let remainder = x.remainderReportingOverflow(dividingBy: y).partialValue
            return remainder != 0 && (y < 0) != (remainder < 0) ? remainder &+ y : remainder
        }
    }
}
