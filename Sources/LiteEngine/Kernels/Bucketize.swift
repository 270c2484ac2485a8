import LiteFormat

/// BUCKETIZE: for each value (float32, int32 or int64) the number of boundaries at or below it (`std::upper_bound`),
/// as int32. The boundaries (a float list in the options) must ascend.
final class Bucketize: Kernel {
    let boundaries: [Float]

    required init(_ node: NodeContext) throws {
        boundaries = try BucketizeOptions(node.options).boundaries
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
        guard zip(boundaries, boundaries.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw KernelError.invalid("BUCKETIZE boundaries must ascend") }
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int32, .int64)
        output.type = .int32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, out = node.outputs[0].pointer(Int32.self)
        // Integers compare as floats, as C++ compares an int with a float boundary.
        func bucket(_ value: Float) -> Int32 {
            var (low, high) = (0, boundaries.count)
            while low < high {
                let middle = (low + high) / 2
                if value < boundaries[middle] { high = middle } else { low = middle + 1 }
            }
            return Int32(low)
        }
        for i in 0..<input.elementCount {
            switch input.type {
            case .float32: out[i] = bucket(input.floats[i])
            case .int32: out[i] = bucket(Float(input.pointer(Int32.self)[i]))
            default: out[i] = bucket(Float(input.pointer(Int64.self)[i]))
            }
        }
    }
}
