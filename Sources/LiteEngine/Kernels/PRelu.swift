/// PRELU: x where x >= 0, else alpha * x; alpha broadcasts against x.
enum PReluOperation: BinaryFloatOperation {
    static let hasFusedActivation = false
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a >= 0 ? a : a * b }
}

typealias PRelu = BinaryElementwise<PReluOperation>
