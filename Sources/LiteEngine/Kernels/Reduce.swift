import LiteFormat

/// MEAN and SUM over the axes given by the second (constant) input, with keep_dims.
/// Float sums accumulate in float in input order, as TFLite's reference reducer.
class Reduce: Kernel {
    let keepDims: Bool
    var axes: Set<Int> = []
    var isMean: Bool { false }

    required init(_ node: NodeContext) throws {
        keepDims = try ReducerOptions(node.options).keepDims
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32)
        axes = try Set(integers(try self.input(1)).map { a -> Int in
            let axis = a < 0 ? a + input.rank : a
            guard axis >= 0, axis < input.rank else { throw KernelError.invalid("axis \(a) out of range for \(input.shape)") }
            return axis
        })
        output.type = .float32
        output.shape = input.shape.enumerated().compactMap { axes.contains($0.offset) ? (keepDims ? 1 : nil) : $0.element }
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let src = input.floats, dst = output.floats
        let outCount = output.elementCount
        dst.update(repeating: 0, count: outCount)
        let rank = input.rank
        // Output strides seen from input coordinates (0 on reduced axes).
        var strides = Array(repeating: 0, count: rank)
        var running = 1
        for d in stride(from: rank - 1, through: 0, by: -1) where !axes.contains(d) {
            strides[d] = running
            running *= input.shape[d]
        }
        var index = Array(repeating: 0, count: rank)
        var offset = 0
        for i in 0..<input.elementCount {
            dst[offset] += src[i]
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                offset += strides[d]
                if index[d] < input.shape[d] { break }
                offset -= strides[d] * input.shape[d]
                index[d] = 0
                d -= 1
            }
        }
        if isMean {
            let count = Float(input.elementCount / max(outCount, 1))
            for i in 0..<outCount { dst[i] /= count }
        }
    }
}

/// MEAN: the average over the reduced axes.
final class Mean: Reduce {
    override var isMean: Bool { true }
}

/// SUM: the total over the reduced axes.
final class Sum: Reduce {}
