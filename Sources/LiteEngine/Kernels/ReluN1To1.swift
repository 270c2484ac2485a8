/// RELU_N1_TO_1: min(max(x, -1), 1).
enum ReluN1To1Operation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < -1 ? -1 : (x > 1 ? 1 : x) }
}

typealias ReluN1To1 = UnaryElementwise<ReluN1To1Operation>
