import LiteFormat

/// GATHER: `params` rows picked by `indices` along `axis`; output shape params[:axis] + indices + params[axis+1:].
/// An index outside the axis is an error at run time, as in TFLite.
final class Gather: Kernel {
    override var foldsAtPlanning: Bool { true }

    let options: GatherOptions
    var axis = 0

    required init(_ node: NodeContext) throws {
        options = try GatherOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
        guard options.batchDims == 0 else { throw KernelError.unsupported("batch_dims \(options.batchDims)") }
    }

    override func prepare() throws {
        let params = try input(0), indices = try input(1), output = try self.output(0)
        _ = try elementSize(params)
        try expectType(indices, .int32, .int64)
        axis = try normalizedAxis(options.axis, rank: params.rank)
        output.type = params.type
        output.shape = Array(params.shape[..<axis]) + indices.shape + Array(params.shape[(axis + 1)...])
    }

    override func run(_ context: RunContext) throws {
        let params = node.inputs[0]!, indices = node.inputs[1]!, output = node.outputs[0]
        let size = params.type.byteSize!
        let outer = params.shape[..<axis].reduce(1, *), axisSize = params.shape[axis]
        let inner = params.shape[(axis + 1)...].reduce(1, *) * size
        let count = indices.elementCount
        let raw = indices.data!
        for i in 0..<count {
            let index = indices.type == .int32 ? Int(raw.load(fromByteOffset: 4 * i, as: Int32.self)) : Int(raw.load(fromByteOffset: 8 * i, as: Int64.self))
            guard index >= 0, index < axisSize else { throw KernelError.invalid("gather index \(index) out of range 0..<\(axisSize)") }
            for o in 0..<outer {
                (output.data! + (o * count + i) * inner).copyMemory(from: params.data! + (o * axisSize + index) * inner, byteCount: inner)
            }
        }
    }
}
