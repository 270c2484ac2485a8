/// NEG: -x.
final class Neg: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in -x }
    }
}
