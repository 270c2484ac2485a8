/// RELU: max(x, 0).
final class Relu: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : x }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Relu.self)
    }
}
