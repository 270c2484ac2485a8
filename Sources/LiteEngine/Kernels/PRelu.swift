/// PRELU: x where x >= 0, else alpha * x; alpha broadcasts against x.
final class PRelu: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a >= 0 ? a : a * b }

    override func run(_ context: RunContext) throws {
        compute(context.threads, PRelu.self)
    }
}
