import LiteFormat

/// GATHER: `params` rows picked by `indices` along `axis`; output shape params[:axis] + indices[batch_dims:] +
/// params[axis+1:]. With `batch_dims` b, the first b dimensions of params and indices are shared batches: each batch
/// gathers with its own indices. An index outside the axis is an error at run time, as in TFLite.
final class Gather: Kernel {
    override var foldsAtPlanning: Bool { true }

    let options: GatherOptions
    var axis = 0
    var batchDimensions = 0

    required init(_ node: NodeContext) throws {
        options = try GatherOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let params = try input(0), indices = try input(1), output = try self.output(0)
        _ = try elementSize(params)
        try expectType(indices, .int32, .int64)
        axis = try normalizedAxis(options.axis, rank: params.rank)
        batchDimensions = options.batchDims < 0 ? options.batchDims + indices.rank : options.batchDims
        guard batchDimensions >= 0, batchDimensions <= axis, batchDimensions <= indices.rank,
              params.shape.prefix(batchDimensions) == indices.shape.prefix(batchDimensions) else {
            throw KernelError.invalid("batch_dims \(options.batchDims) for params \(params.shape), indices \(indices.shape), axis \(axis)")
        }
        output.type = params.type
        output.shape = Array(params.shape[..<axis]) + indices.shape[batchDimensions...] + Array(params.shape[(axis + 1)...])
    }

    override func run(_ context: RunContext) throws {
        let params = node.inputs[0]!, indices = node.inputs[1]!, output = node.outputs[0]
        let size = params.type.byteSize!
        let batches = params.shape[..<batchDimensions].reduce(1, *)
        let outer = params.shape[batchDimensions..<axis].reduce(1, *), axisSize = params.shape[axis]
        let inner = params.shape[(axis + 1)...].reduce(1, *) * size
        let count = indices.shape[batchDimensions...].reduce(1, *)
        let raw = indices.data!
        for batch in 0..<batches {
            for i in 0..<count {
                let position = batch * count + i
                let index = indices.type == .int32 ? Int(raw.load(fromByteOffset: 4 * position, as: Int32.self))
                                                   : Int(raw.load(fromByteOffset: 8 * position, as: Int64.self))
                guard index >= 0, index < axisSize else { throw KernelError.invalid("gather index \(index) out of range 0..<\(axisSize)") }
                for o in batch * outer..<(batch + 1) * outer {
                    (output.data! + (o * count + i) * inner).copyMemory(from: params.data! + (o * axisSize + index) * inner, byteCount: inner)
                }
            }
        }
    }
}
