/// REAL: the real part of complex64 values, as float32 (see ``ComplexToReal``).
final class Real: ComplexToReal {
    override class func apply(_ real: Float, _ imaginary: Float) -> Float { real }
}

/// IMAG: the imaginary part of complex64 values, as float32.
final class Imag: ComplexToReal {
    override class func apply(_ real: Float, _ imaginary: Float) -> Float { imaginary }
}

/// Base class of the ops from complex64 values to a float32 of each (REAL, IMAG, COMPLEX_ABS), same shape out.
class ComplexToReal: Kernel {
    class func apply(_ real: Float, _ imaginary: Float) -> Float { fatalError("subclass") }

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
        for i in 0..<node.outputs[0].elementCount { out[i] = Self.apply(z[2 * i], z[2 * i + 1]) }
    }
}
