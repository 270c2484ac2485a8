/// RELU: max(x, 0).
enum ReluOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : x }
}

typealias Relu = UnaryElementwise<ReluOperation>
