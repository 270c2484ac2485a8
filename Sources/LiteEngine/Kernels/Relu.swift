/// RELU: max(x, 0). uint8/int8 as TFLite's quantized `ReluX` (see ``UnaryElementwise/quantizedClamp``).
final class Relu: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : x }

    override class var quantizedClamp: (minimum: Float, maximum: Float?)? { (0, nil) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Relu.self)
    }
}

extension Relu: FoldableClamp {
    var floatClamp: (Float, Float)? { node.inputs[0]?.type == .float32 ? (0, .infinity) : nil }
}
