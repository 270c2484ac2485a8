/// NEG: -x; int32 and int64 wrap (the most negative value stays).
final class Neg: UnaryElementwise, FloatUnaryOperation {
    override class var integerFunction: ((Int64) -> Int64)? { { 0 &- $0 } }

    @inline(__always) static func apply(_ x: Float) -> Float { -x }

    override func runFloat(_ context: RunContext) throws {
        compute(context.threads, Neg.self)
    }
}
