import Foundation

/// ELU: x for x ≥ 0, e^x − 1 below (libm's `expm1f`, as TFLite); uint8/int8 through TFLite's float lookup table.
final class Elu: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? expm1f(x) : x }

    override class var quantizedFunction: ((Float) -> Float)? { { x in x < 0 ? expm1f(x) : x } }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Elu.self)
    }
}
