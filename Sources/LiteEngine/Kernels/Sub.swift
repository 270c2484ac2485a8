/// SUB: a - b with broadcasting and a fused activation; float32, or uint8/int8 as ADD with the second input's
/// multiplier negated (see ``Add``).
final class Sub: Add {
    override class var subtracts: Bool { true }
}
