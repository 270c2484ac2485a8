/// SQUARE: x².
final class Square: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x * x }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Square.self)
    }
}
