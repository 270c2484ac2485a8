/// ABS: |x|; int32 and int64 wrap (the most negative value stays).
final class Abs: UnaryElementwise, FloatUnaryOperation {
    override class var integerFunction: ((Int64) -> Int64)? { { $0 < 0 ? 0 &- $0 : $0 } }

    @inline(__always) static func apply(_ x: Float) -> Float { Swift.abs(x) }

    override func run(_ context: RunContext) throws {
        if runLookupTable() { return }
        compute(context.threads, Abs.self)
    }
}
