import LiteFormat

/// DENSIFY: expands a constant sparse tensor (TACO format: per-dimension dense or CSR storage in a traversal
/// order, optionally with blocks) into its dense form, once, while the plan is built. The walk follows
/// TFLite's `FormatConverter::SparseToDense`; every index read from the file is bounds-checked.
final class Densify: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        let size = try elementSize(input)
        guard input.storage == .constant else { throw KernelError.unsupported("DENSIFY of a non-constant tensor") }
        guard let sparsity = sparsityOf(input) else { throw KernelError.invalid("input \(input.index) has no sparsity parameters") }
        output.type = input.type
        output.shape = input.shape
        guard output.storage != .persistent else { return }
        // Allocated here, outside the arena plan: a hostile shape must be an error, not a failed 34 GB allocation.
        guard let count = Tensor.checkedCount(output.shape), saturatingProduct(count, size) <= node.interpreterOptions.memoryLimit else {
            throw KernelError.invalid("dense output \(output.shape) needs more than the memory limit of \(node.interpreterOptions.memoryLimit) bytes")
        }
        output.makePersistent(byteCount: output.byteCount)
        let denseShape = input.shape
        let rank = denseShape.count
        let order = sparsity.traversalOrder, dims = sparsity.dimensions
        guard order.count == dims.count, order.count >= rank, Set(order) == Set(0..<order.count),
              sparsity.blockMap.count == order.count - rank, sparsity.blockMap.allSatisfy({ $0 >= 0 && $0 < rank })
        else { throw KernelError.invalid("inconsistent sparsity parameters") }
        let blockSizes = (rank..<order.count).map { level -> Int in
            dims[order.firstIndex(of: level)!].denseSize
        }
        let sourceCount = node.model.buffers[node.model.subgraphs[node.subgraph].tensors[input.index].buffer].count / size
        let strides = rowMajorStrides(denseShape)
        let src = input.data!, dst = output.data!
        var consumed = 0
        var indices = Array(repeating: 0, count: order.count)
        var failure: String?
        // A valid walk visits each stored value once, through at most one step a level; a hostile dense size over an
        // empty CSR level would loop for minutes without consuming any, so the steps are bounded.
        var steps = 0
        let stepLimit = saturatingProduct(sourceCount + count, order.count + 1) + 1024

        func populate(level: Int, previous: Int) {
            if failure != nil { return }
            steps += 1
            guard steps <= stepLimit else { failure = "the sparse walk takes more than \(stepLimit) steps for \(sourceCount) values"; return }
            if level == order.count {
                var original = Array(repeating: 0, count: rank)
                for i in 0..<rank { original[order[i]] = indices[i] }
                for i in rank..<order.count {
                    let block = order[i] - rank
                    let dim = sparsity.blockMap[block]
                    original[dim] = original[dim] * blockSizes[block] + indices[i]
                }
                guard zip(original, denseShape).allSatisfy({ $0 >= 0 && $0 < $1 }), consumed < sourceCount else {
                    failure = "sparse index \(original) or value \(consumed) out of range"
                    return
                }
                let flat = zip(original, strides).reduce(0) { $0 + $1.0 * $1.1 }
                (dst + flat * size).copyMemory(from: src + consumed * size, byteCount: size)
                consumed += 1
                return
            }
            let dim = dims[level]
            if dim.format == .dense {
                // A dense level spans at most its dimension of the dense shape (a block level, its block).
                let bound = order[level] < rank ? denseShape[order[level]] : dim.denseSize
                guard dim.denseSize >= 0, dim.denseSize <= bound, dim.denseSize <= TFLiteModel.Limits.maxElements else {
                    failure = "dense size \(dim.denseSize) at level \(level) of \(denseShape)"; return
                }
                for i in 0..<dim.denseSize where failure == nil {
                    indices[level] = i
                    populate(level: level + 1, previous: previous * dim.denseSize + i)
                }
            } else if previous + 1 < dim.arraySegments.count {
                let lower = dim.arraySegments[previous], upper = dim.arraySegments[previous + 1]
                guard lower >= 0, upper >= lower, upper <= dim.arrayIndices.count else { failure = "bad CSR segment \(lower)..<\(upper)"; return }
                for i in lower..<upper where failure == nil {
                    indices[level] = dim.arrayIndices[i]
                    populate(level: level + 1, previous: i)
                }
            }
        }
        populate(level: 0, previous: 0)
        if let failure { throw KernelError.invalid(failure) }
        output.isComputedConstant = true
    }

    private func sparsityOf(_ tensor: Tensor) -> Sparsity? {
        node.model.subgraphs[node.subgraph].tensors[tensor.index].sparsity
    }
}
