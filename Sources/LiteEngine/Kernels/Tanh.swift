import Foundation

/// TANH: hyperbolic tangent.
final class Tanh: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in tanhf(x) }
    }
}
