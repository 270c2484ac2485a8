/// NEG: -x.
final class Neg: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { -x }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Neg.self)
    }
}
