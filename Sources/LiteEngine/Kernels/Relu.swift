/// RELU: max(x, 0).
final class Relu: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in x < 0 ? 0 : x }
    }
}
