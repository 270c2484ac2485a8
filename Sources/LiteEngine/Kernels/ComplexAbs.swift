import Foundation

/// COMPLEX_ABS: `|z|` of complex64 values as float32 (`hypotf`, as C++'s `std::abs` of a `std::complex<float>`).
final class ComplexAbs: Kernel {
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
        for i in 0..<node.outputs[0].elementCount { out[i] = hypotf(z[2 * i], z[2 * i + 1]) }
    }
}
