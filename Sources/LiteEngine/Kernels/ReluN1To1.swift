/// RELU_N1_TO_1: min(max(x, -1), 1).
final class ReluN1To1: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < -1 ? -1 : (x > 1 ? 1 : x) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, ReluN1To1.self)
    }
}
