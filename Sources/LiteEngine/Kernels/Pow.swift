import Foundation

/// POW: x^y with broadcasting. float32 by libm's `powf`; int32 by repeated squaring (wrapping, as TFLite's
/// `IntegerPow`), a negative exponent being an error when the node runs, as in TFLite.
final class Pow: NumericBinaryElementwise {
    override func run(_ context: RunContext) throws {
        if node.outputs[0].type == .float32 { return try compute(Float.self) { powf($0, $1) } }
        try compute(Int32.self) { base, exponent in
            guard exponent >= 0 else { throw KernelError.invalid("POW of int32 to a negative exponent (\(exponent))") }
            return Pow.integerPower(base, exponent)
        }
    }

    static func integerPower(_ base: Int32, _ exponent: Int32) -> Int32 {
        var result: Int32 = 1, square = base, rest = exponent
        while rest > 0 {
            if rest & 1 == 1 { result &*= square }
            square &*= square
            rest >>= 1
        }
        return result
    }
}
