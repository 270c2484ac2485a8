/// MAXIMUM: elementwise max with broadcasting.
final class Maximum: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { Swift.max(a, b) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Maximum.self)
    }
}
