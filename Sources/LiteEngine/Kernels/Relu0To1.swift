/// RELU_0_TO_1: min(max(x, 0), 1). uint8/int8 as TFLite's quantized `ReluX` (see ``UnaryElementwise/quantizedClamp``).
final class Relu0To1: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : (x > 1 ? 1 : x) }

    override class var quantizedClamp: (minimum: Float, maximum: Float?)? { (0, 1) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Relu0To1.self)
    }
}

extension Relu0To1: FoldableClamp {
    var floatClamp: (Float, Float)? { node.inputs[0]?.type == .float32 ? (0, 1) : nil }
}
