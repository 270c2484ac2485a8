import Foundation

/// EXP: e^x.
final class Exp: UnaryElementwise {
    override func run(_ context: RunContext) throws {
        compute(context.threads) { x in expf(x) }
    }
}
