/// BITCAST (`tf.bitcast`): the input's bytes read as the output's type. Same element size: same shape; a larger input
/// element: one more dimension of input size / output size; a smaller one: the last dimension, which must equal
/// output size / input size, is dropped (TFLite's bitcast.cc).
final class Bitcast: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        let inputSize = try elementSize(input), outputSize = try elementSize(output)
        if inputSize == outputSize {
            output.shape = input.shape
        } else if inputSize > outputSize {
            guard inputSize % outputSize == 0 else { throw KernelError.invalid("BITCAST from \(input.type) to \(output.type)") }
            output.shape = input.shape + [inputSize / outputSize]
        } else {
            guard outputSize % inputSize == 0, input.shape.last == outputSize / inputSize else {
                throw KernelError.invalid("BITCAST of \(input.shape) \(input.type) to \(output.type): the last dimension must be \(outputSize / max(inputSize, 1))")
            }
            output.shape = Array(input.shape.dropLast())
        }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        guard let from = input.data, let to = output.data, from != to else { return }
        to.copyMemory(from: from, byteCount: input.elementCount * input.type.byteSize!)
    }
}
