/// SIGN: 1 for positive x, −1 for negative, 0 for zero (and NaN, as TFLite's `(0 < x) − (x < 0)`).
final class Sign: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x > 0 ? 1 : (x < 0 ? -1 : 0) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Sign.self)
    }
}
