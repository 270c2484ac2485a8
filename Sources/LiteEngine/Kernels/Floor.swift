/// FLOOR: the largest integer not above x.
final class Floor: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x.rounded(.down) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Floor.self)
    }
}
