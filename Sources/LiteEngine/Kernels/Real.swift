/// REAL and IMAG (``Imag``): the real or imaginary part of complex64 values, as float32.
class Real: Kernel {
    /// 0 for the real part, 1 for the imaginary.
    class var part: Int { 0 }

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .complex64)
        output.type = .float32
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let z = node.inputs[0]!.pointer(Float.self), out = node.outputs[0].floats
        for i in 0..<node.outputs[0].elementCount { out[i] = z[2 * i + Self.part] }
    }
}

/// IMAG: see ``Real``.
final class Imag: Real {
    override class var part: Int { 1 }
}
