import LiteFormat

/// REVERSE_SEQUENCE: along `seq_dim`, the first `seq_lengths[b]` elements of batch `b` (the index along `batch_dim`)
/// in reverse order, the rest as they are. Any fixed-size type; a length below 0 or past the axis is an error when
/// the node runs.
final class ReverseSequence: Kernel {
    let options: ReverseSequenceOptions

    required init(_ node: NodeContext) throws {
        options = try ReverseSequenceOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), lengths = try self.input(1), output = try self.output(0)
        _ = try elementSize(input)
        try expectType(lengths, .int32, .int64)
        let (sequenceAxis, batchAxis) = (options.sequenceAxis, options.batchAxis)
        guard (0..<input.rank).contains(sequenceAxis), (0..<input.rank).contains(batchAxis), sequenceAxis != batchAxis,
              lengths.shape == [input.dim(batchAxis)] else {
            throw KernelError.invalid("REVERSE_SEQUENCE of \(input.shape) along \(sequenceAxis) by batch axis \(batchAxis) with lengths \(lengths.shape)")
        }
        output.type = input.type
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, lengths = node.inputs[1]!, output = node.outputs[0]
        let size = input.type.byteSize!, shape = input.shape
        let (sequenceAxis, batchAxis) = (options.sequenceAxis, options.batchAxis)
        let length = shape[sequenceAxis]
        let limits = try (0..<shape[batchAxis]).map { b -> Int in
            let value = lengths.integer(at: b)
            guard value >= 0, value <= length else { throw KernelError.invalid("REVERSE_SEQUENCE length \(value) for an axis of \(length)") }
            return value
        }
        var strides = [Int](repeating: 1, count: shape.count)
        for d in stride(from: shape.count - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * shape[d + 1] }
        let source = input.data!, destination = output.data!
        var index = [Int](repeating: 0, count: shape.count)
        for flat in 0..<input.elementCount {
            let position = index[sequenceAxis], limit = limits[index[batchAxis]]
            let from = position < limit ? flat + (limit - 1 - 2 * position) * strides[sequenceAxis] : flat
            (destination + flat * size).copyMemory(from: source + from * size, byteCount: size)
            var d = shape.count - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}
