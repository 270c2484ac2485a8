/// RELU_N1_TO_1: min(max(x, -1), 1). uint8/int8 as TFLite's quantized `ReluX` (see ``UnaryElementwise/quantizedClamp``).
final class ReluN1To1: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < -1 ? -1 : (x > 1 ? 1 : x) }

    override class var quantizedClamp: (minimum: Float, maximum: Float?)? { (-1, 1) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, ReluN1To1.self)
    }
}

extension ReluN1To1: FoldableClamp {
    var floatClamp: (Float, Float)? { node.inputs[0]?.type == .float32 ? (-1, 1) : nil }
}
