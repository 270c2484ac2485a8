/// DIV: a / b with broadcasting and a fused activation (IEEE division: x / 0 is ±inf or NaN, as TFLite's float kernel).
final class Div: BinaryElementwise, FloatBinaryOperation {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b }

    override class var hasFusedActivation: Bool { true }

    override func run(_ context: RunContext) throws {
        compute(context.threads, Div.self)
    }
}
