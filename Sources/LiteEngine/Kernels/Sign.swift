/// SIGN: 1 for positive x, −1 for negative, 0 for zero; NaN stays NaN, as LiteRT's kernel gives it.
final class Sign: UnaryElementwise, FloatUnaryOperation {
    override class var integerFunction: ((Int64) -> Int64)? { { $0 > 0 ? 1 : ($0 < 0 ? -1 : 0) } }

    @inline(__always) static func apply(_ x: Float) -> Float { x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x)) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Sign.self)
    }
}
