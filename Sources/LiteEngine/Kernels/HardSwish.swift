/// HARD_SWISH: x * relu6(x + 3) / 6.
final class HardSwish: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in x * Swift.min(Swift.max(x + 3, 0), 6) / 6 }
    }
}
