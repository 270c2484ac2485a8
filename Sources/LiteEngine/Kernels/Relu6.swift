/// RELU6: min(max(x, 0), 6).
final class Relu6: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : (x > 6 ? 6 : x) }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Relu6.self)
    }
}
