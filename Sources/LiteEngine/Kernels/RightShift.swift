/// RIGHT_SHIFT: `a >> b` on integers of one type, broadcast; arithmetic for signed types, the shift clamped to
/// [0, bits − 1] as TFLite clamps it.
final class RightShift: IntegerBinaryElementwise {
    override class func apply<T: FixedWidthInteger>(_ a: T, _ b: T) -> T {
        let shift = b < 0 ? 0 : (b > T.bitWidth - 1 ? T.bitWidth - 1 : Int(b))
        return a >> shift
    }
}
