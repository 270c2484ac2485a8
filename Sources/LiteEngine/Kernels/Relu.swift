/// RELU: max(x, 0). uint8/int8 as TFLite's quantized `ReluX` (see ``UnaryElementwise/prepareQuantizedClamp(minimum:maximum:)``).
final class Relu: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : x }

    override func prepare() throws {
        if try !prepareQuantizedClamp(minimum: 0, maximum: nil) { try super.prepare() }
    }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Relu.self)
    }
}

extension Relu: FoldableClamp {
    var floatClamp: (Float, Float)? { node.inputs[0]?.type == .float32 ? (0, .infinity) : nil }
}
