/// MAXIMUM: elementwise max with broadcasting.
final class Maximum: BinaryElementwise {
    override func run(_ context: RunContext) throws {
        compute { a, b in Swift.max(a, b) }
    }
}
