/// MINIMUM: elementwise min with broadcasting.
final class Minimum: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { Swift.min(a, b) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Minimum.self)
    }
}
