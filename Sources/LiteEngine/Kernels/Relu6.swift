/// RELU6: min(max(x, 0), 6).
final class Relu6: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in x < 0 ? 0 : (x > 6 ? 6 : x) }
    }
}
