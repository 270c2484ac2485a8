/// DIV: a / b with broadcasting and a fused activation (IEEE division: x / 0 is ±inf or NaN, as TFLite's float kernel).
enum DivOperation: BinaryFloatOperation {
    static let hasFusedActivation = true
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b }
}

typealias Div = BinaryElementwise<DivOperation>
