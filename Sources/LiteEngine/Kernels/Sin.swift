import Foundation

/// SIN: sine (libm's `sinf`).
final class Sin: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { sinf(x) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Sin.self)
    }
}
