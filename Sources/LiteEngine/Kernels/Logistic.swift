import Foundation

/// LOGISTIC: 1 / (1 + e^-x); uint8/int8 through TFLite's float lookup table, int16 through its sigmoid table. Float runs
/// ``applySigmoid(_:into:_:multiplyingByInput:)`` (the AVX2 kernel `lite_f32_sigmoid__avx2` from the avx2 level up, ``vectorizableSigmoid`` at baseline: a
/// few ulp from libm's `expf`, which the lookup table keeps for exactness), as a swish MUL that folds this node does.
final class Logistic: UnaryElementwise, FloatUnaryOperation {
    @inline(__always) static func apply(_ x: Float) -> Float { vectorizableSigmoid(x) }

    override class var quantizedFunction: ((Float) -> Float)? { { x in 1 / (1 + expf(-x)) } }

    /// int16: TFLite's table interpolation (``Int16Activations/logistic(_:multiplier:shift:)``), or on a power-of-two input
    /// scale gemmlowp's fixed-point logistic (``FixedPoint16``), as LiteRT's kernels choose.
    override class func int16Function(input: Tensor, output: Tensor) throws -> ((Int32) -> Int32)? {
        try Int16Activations.expectSymmetric(input, output)
        switch try Int16Activations.sigmoidInput(inputScale: try QuantizedTensorInfo(input).scale, outputScale: try QuantizedTensorInfo(output).scale,
                                                 tanh: false, op: "LOGISTIC") {
        case .rescaled(let multiplier, let shift):
            return { Int16Activations.logistic($0, multiplier: multiplier, shift: shift) }
        case .fixedPoint:
            return { Int32(FixedPoint16.logistic(Int16(truncatingIfNeeded: $0), integerBits: 3)) }
        }
    }

    override func runFloat(_ context: RunContext) throws {
        let input = node.inputs[0]!.floats, output = node.outputs[0].floats
        parallelFor(node.inputs[0]!.elementCount, threads: context.threads, minimumChunk: 4096, workPerItem: 8) { range in
            applySigmoid(input + range.lowerBound, into: output + range.lowerBound, range.count)
        }
    }
}

extension Logistic: FoldableSigmoid {
    var isFloatSigmoid: Bool { node.inputs[0]?.type == .float32 && node.outputs[0].type == .float32 }
}
