import LiteFormat

/// SLICE: `size[d]` elements from `begin[d]` on each axis; a size of -1 takes the rest of the axis.
///
/// `begin` may be computed while the model runs (the slice at a loop counter in a Keras LSTM's WHILE body) when
/// `size` is constant and has no -1, so that the output shape is known when the plan is built; such a `begin` is
/// read and checked at every run.
final class Slice: Kernel {
    override var foldsAtPlanning: Bool { true }

    var begin: [Int] = []
    /// Whether `begin` is read when the node runs.
    var beginAtRun = false

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 3...3, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        let size = try integers(try self.input(2))
        let beginTensor = try self.input(1)
        beginAtRun = beginTensor.storage == .arena && beginTensor.elementCount > 0
        if beginAtRun {
            try expectType(beginTensor, .int32, .int64)
            guard beginTensor.shape == [input.rank], size.count == input.rank, zip(size, input.shape).allSatisfy({ 0 <= $0 && $0 <= $1 }) else {
                throw KernelError.unsupported("a begin computed at run time needs a constant size within the input \(input.shape), has \(size)")
            }
            output.type = input.type
            output.shape = size
            return
        }
        let begin = try integers(beginTensor)
        guard begin.count == input.rank, size.count == input.rank else { throw KernelError.invalid("begin/size do not fit rank \(input.rank)") }
        var shape: [Int] = []
        for d in 0..<input.rank {
            let extent = size[d] == -1 ? input.shape[d] - begin[d] : size[d]
            guard begin[d] >= 0, extent >= 0, begin[d] + extent <= input.shape[d] else {
                throw KernelError.invalid("slice begin \(begin) size \(size) out of range for \(input.shape)")
            }
            shape.append(extent)
        }
        self.begin = begin
        output.type = input.type
        output.shape = shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard output.elementCount > 0 else { return }
        if beginAtRun {
            let values = node.inputs[1]!
            begin = (0..<input.rank).map { values.integer(at: $0) }
            for d in 0..<input.rank where begin[d] < 0 || begin[d] > input.shape[d] - output.shape[d] {
                throw KernelError.invalid("slice begin \(begin) size \(output.shape) out of range for \(input.shape)")
            }
        }
        let strides = rowMajorStrides(input.shape)
        stridedCopy(source: input.data!, start: zip(begin, strides).reduce(0) { $0 + $1.0 * $1.1 }, sourceStrides: strides,
                    shape: output.shape, destination: output.data!, elementSize: input.type.byteSize!)
    }
}
