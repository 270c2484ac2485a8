/// MINIMUM: elementwise min with broadcasting.
enum MinimumOperation: BinaryFloatOperation {
    static let hasFusedActivation = false
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { Swift.min(a, b) }
}

typealias Minimum = BinaryElementwise<MinimumOperation>
