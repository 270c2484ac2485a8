/// SQRT: square root (NaN below 0).
final class Sqrt: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.squareRoot() }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Sqrt.self)
    }
}
