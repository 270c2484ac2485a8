/// ADD: a + b with broadcasting and a fused activation.
enum AddOperation: BinaryFloatOperation {
    static let hasFusedActivation = true
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b }
}

typealias Add = BinaryElementwise<AddOperation>
