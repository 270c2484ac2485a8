/// ABS: |x|.
final class Abs: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { Swift.abs(x) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Abs.self)
    }
}
