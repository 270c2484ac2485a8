/// MAXIMUM: elementwise max with broadcasting; float32, int32, int64, or uint8/int8 stored values.
final class Maximum: BinaryElementwise, FloatBinaryOperation {
    /// TFLite's `a > b ? a : b`: a NaN first operand gives the second, a NaN second operand stays.
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a > b ? a : b }

    override class var comparesStoredValues: Bool { true }

    override func run(_ context: RunContext) throws {
        if integerRange != nil { return computeIntegers { Swift.max($0, $1) } }
        if storedValues { return computeStoredValues(context, Maximum.apply) }
        compute(context.threads, Maximum.self)
    }
}
