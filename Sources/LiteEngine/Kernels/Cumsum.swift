import LiteFormat

/// CUMSUM: running sums along an axis (a constant int32 scalar), float32, int32 or int64; `exclusive` leaves each
/// element out of its own sum, `reverse` runs from the end. Float sums accumulate in order, as TFLite's kernel.
final class Cumsum: Kernel {
    let options: CumsumOptions
    var axis = 0

    required init(_ node: NodeContext) throws {
        options = try CumsumOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int32, .int64)
        let axes = try integers(try self.input(1))
        guard axes.count == 1 else { throw KernelError.invalid("CUMSUM axis must be a scalar, has \(axes.count) values") }
        axis = try normalizedAxis(axes[0], rank: input.rank)
        output.type = input.type
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        // An empty output (a dimension of 0) has nothing to compute, however large the other dimensions are.
        guard node.outputs[0].elementCount > 0 else { return }
        switch node.outputs[0].type {
        case .float32: accumulate(Float.self, +)
        case .int32: accumulate(Int32.self, &+)
        default: accumulate(Int64.self, &+)
        }
    }

    private func accumulate<T: Numeric>(_: T.Type, _ add: (T, T) -> T) {
        let input = node.inputs[0]!, shape = input.shape
        let outer = shape[..<axis].reduce(1, *), length = shape[axis], inner = shape[(axis + 1)...].reduce(1, *)
        let src = input.pointer(T.self), dst = node.outputs[0].pointer(T.self)
        for o in 0..<outer {
            for i in 0..<inner {
                var sum: T = 0
                for step in 0..<length {
                    let k = options.reverse ? length - 1 - step : step
                    let at = (o * length + k) * inner + i
                    if options.exclusive {
                        dst[at] = sum
                        sum = add(sum, src[at])
                    } else {
                        sum = add(sum, src[at])
                        dst[at] = sum
                    }
                }
            }
        }
    }
}
