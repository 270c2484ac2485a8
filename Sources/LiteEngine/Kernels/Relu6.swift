/// RELU6: min(max(x, 0), 6). uint8/int8 as TFLite's quantized `ReluX` (see ``UnaryElementwise/quantizedClamp``).
final class Relu6: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : (x > 6 ? 6 : x) }

    override class var quantizedClamp: (minimum: Float, maximum: Float?)? { (0, 6) }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Relu6.self)
    }
}

extension Relu6: FoldableClamp {
    var floatClamp: (Float, Float)? { node.inputs[0]?.type == .float32 ? (0, 6) : nil }
}
