import Foundation
import LiteFormat

/// GELU: x·Φ(x), exactly as `0.5·x·erfc(−x/√2)` (erfc rather than 1 + erf, which cancels for large negative x)
/// or, with `approximate`, `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`. uint8/int8 through TFLite's float lookup
/// table of the same functions (libm's `erfcf` and `tanhf`, as TFLite's table is built), int16 through its interpolated
/// 513-entry table of them (`LUTPopulate<int16_t>`); float runs branch-free code
/// the compiler vectorizes (``vectorizableErfc``, ``vectorizableTanh``): a libm call per element is far slower.
final class Gelu: UnaryElementwise {
    let options: GeluOptions

    required init(_ node: NodeContext) throws {
        options = try GeluOptions(node.options)
        try super.init(node)
    }

    /// √(2/π) as TFLite spells it (M_2_SQRTPI · M_SQRT1_2, rounded once to float).
    static let sqrtTwoOverPi = Float(0.7978845608028654)

    static func exact(_ x: Float) -> Float { 0.5 * x * erfcf(x * -Float(0.7071067811865476)) }

    static func approximate(_ x: Float) -> Float { 0.5 * x * (1 + tanhf(sqrtTwoOverPi * (x + 0.044715 * x * x * x))) }

    enum ExactForm: FloatUnaryOperation {
        @inline(__always) static func apply(_ x: Float) -> Float { 0.5 * x * vectorizableErfc(x * -Float(0.7071067811865476)) }
    }

    enum TanhForm: FloatUnaryOperation {
        @inline(__always) static func apply(_ x: Float) -> Float {
            0.5 * x * (1 + vectorizableTanh(Gelu.sqrtTwoOverPi * (x + 0.044715 * x * x * x)))
        }
    }

    override func makePlan(input: Tensor, output: Tensor) throws -> Plan {
        let function = options.approximate ? Gelu.approximate : Gelu.exact
        switch input.type {
        case .int16:
            // int16 (16x8 models): TFLite's 513-entry interpolated table (`LUTPopulate<int16_t>`, single precision).
            guard output.type == .int16 else { throw KernelError.unsupported("int16 GELU into \(output.type)") }
            return .table(QuantizedLookupTable(type: .int16, function: try Int16Activations.interpolated(input: input, output: output, function)))
        case .uint8, .int8:
            return .table(try QuantizedLookupTable(input: input, output: output, transform: function))
        default:
            return try super.makePlan(input: input, output: output)
        }
    }

    override func runFloat(_ context: RunContext) throws {
        if options.approximate { compute(context.threads, TanhForm.self) } else { compute(context.threads, ExactForm.self) }
    }
}
