/// CEIL: the smallest integer not below x.
final class Ceil: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.rounded(.up) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Ceil.self)
    }
}
