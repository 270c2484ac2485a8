/// SQUARED_DIFFERENCE: (a - b)² with broadcasting.
final class SquaredDifference: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, SquaredDifference.self)
    }
}
