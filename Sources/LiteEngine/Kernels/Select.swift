/// SELECT: `condition ? x : y` with x and y of one shape and the condition either of that shape or of rank 1 along
/// the first axis (whole rows chosen), as TFLite's select.cc; no other broadcasting.
final class Select: SelectV2 {
    override func conditionShape(_ condition: Tensor, _ x: Tensor) throws -> [Int] {
        if condition.shape == x.shape { return condition.shape }
        guard condition.rank == 1, x.rank >= 1, condition.dim(0) == x.dim(0) else {
            throw KernelError.invalid("SELECT condition \(condition.shape) for inputs \(x.shape)")
        }
        return [condition.dim(0)] + Array(repeating: 1, count: x.rank - 1)
    }

    override func prepare() throws {
        try super.prepare()
        guard try input(1).shape == input(2).shape else { throw KernelError.invalid("SELECT inputs \(try input(1).shape) and \(try input(2).shape) differ") }
    }
}
