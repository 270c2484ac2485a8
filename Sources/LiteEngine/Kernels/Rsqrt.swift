/// RSQRT: 1 / sqrt(x).
final class Rsqrt: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { 1 / x.squareRoot() }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Rsqrt.self)
    }
}
