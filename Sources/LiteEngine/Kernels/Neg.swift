/// NEG: -x.
enum NegOperation: UnaryFloatOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { -x }
}

typealias Neg = UnaryElementwise<NegOperation>
