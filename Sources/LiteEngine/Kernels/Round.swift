/// ROUND: to the nearest integer, ties to even (TFLite's RoundToNearest).
final class Round: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.rounded(.toNearestOrEven) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Round.self)
    }
}
