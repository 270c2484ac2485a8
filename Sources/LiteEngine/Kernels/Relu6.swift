/// RELU6: min(max(x, 0), 6).
enum Relu6Operation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { x < 0 ? 0 : (x > 6 ? 6 : x) }
}

typealias Relu6 = UnaryElementwise<Relu6Operation>
