/// BITWISE_XOR: `a ^ b` on integers of one type, broadcast.
final class BitwiseXor: IntegerBinaryElementwise {
    override class func apply<T: FixedWidthInteger>(_ a: T, _ b: T) -> T { a ^ b }
}
