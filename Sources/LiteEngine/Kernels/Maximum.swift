/// MAXIMUM: elementwise max with broadcasting.
enum MaximumOperation: BinaryFloatOperation {
    static let hasFusedActivation = false
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { Swift.max(a, b) }
}

typealias Maximum = BinaryElementwise<MaximumOperation>
