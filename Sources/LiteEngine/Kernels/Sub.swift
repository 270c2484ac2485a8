/// SUB: a - b with broadcasting and a fused activation.
final class Sub: BinaryElementwise {
    override class var hasFusedActivation: Bool { true }

    override func run(_ context: RunContext) throws {
        compute { a, b in a - b }
    }
}
