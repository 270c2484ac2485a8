import Foundation

/// COS: cosine (libm's `cosf`).
final class Cos: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { cosf(x) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Cos.self)
    }
}
