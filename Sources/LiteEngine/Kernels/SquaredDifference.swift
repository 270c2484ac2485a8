/// SQUARED_DIFFERENCE: (a - b)² with broadcasting.
enum SquaredDifferenceOperation: BinaryFloatOperation {
    static let hasFusedActivation = false
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }
}

typealias SquaredDifference = BinaryElementwise<SquaredDifferenceOperation>
