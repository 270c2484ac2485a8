import LiteFormat

/// SQUEEZE: drops the listed size-1 dimensions, or every size-1 dimension when none are listed.
final class Squeeze: ShapeOnly {
    let dims: [Int]

    required init(_ node: NodeContext) throws {
        dims = try SqueezeOptions(node.options).squeezeDims
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func outputShape(for input: Tensor) throws -> [Int] {
        let rank = input.rank
        let drop = try Set(dims.map { d -> Int in
            let axis = d < 0 ? d + rank : d
            guard axis >= 0, axis < rank, input.shape[axis] == 1 else {
                throw KernelError.invalid("cannot squeeze dimension \(d) of \(input.shape)")
            }
            return axis
        })
        return input.shape.enumerated().filter { dims.isEmpty ? $0.element != 1 : !drop.contains($0.offset) }.map(\.element)
    }
}
