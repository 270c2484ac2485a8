import Foundation
import LiteFormat

/// QUANTIZE: float32 to uint8/int8 (`round(x / scale) + zero_point` with the division in double, as
/// TFLite's AffineQuantize), or uint8/int8 to uint8/int8 (requantize: `MultiplyByQuantizedMultiplier(q - zp_in,
/// input_scale / output_scale) + zp_out`, which for equal scales is a plain shift of the zero point).
final class Quantize: Kernel {
    var requantize: (multiplier: Int32, shift: Int, inputZero: Int32, outputZero: Int32)?
    var affine: (scale: Double, zeroPoint: Int32)?

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 1...1, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .uint8, .int8)
        try expectType(output, .uint8, .int8)
        let qo = try QuantizedTensorInfo(output)
        guard qo.scales.count == 1 else { throw KernelError.unsupported("per-channel QUANTIZE output") }
        if input.type == .float32 {
            affine = (Double(qo.scale), qo.zeroPoint)
        } else {
            let qi = try QuantizedTensorInfo(input)
            let (m, s) = IntegerArithmetic.quantizeMultiplier(Double(qi.scale) / Double(qo.scale))
            guard s <= 30 else { throw KernelError.unsupported("requantization multiplier too large") }
            requantize = (m, s, qi.zeroPoint, qo.zeroPoint)
        }
        output.shape = input.shape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let signed = output.type == .int8
        let (low, high): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
        let dst = output.data!
        if let (scale, zeroPoint) = affine {
            let x = input.floats
            for i in 0..<input.elementCount {
                let scaled = (Double(x[i]) / scale).rounded(.toNearestOrAwayFromZero)
                let value = scaled.isNaN ? zeroPoint : Int32(clamping: Int64(max(min(scaled, 1e12), -1e12))) &+ zeroPoint
                storeQuantized(dst, i, min(max(value, low), high), signed: signed)
            }
        } else if let r = requantize {
            let src = UnsafeRawPointer(input.data!), inputSigned = input.type == .int8
            for i in 0..<input.elementCount {
                let q = loadQuantized(src, i, signed: inputSigned) - r.inputZero
                let value = IntegerArithmetic.multiplyByQuantizedMultiplier(q, r.multiplier, r.shift) + r.outputZero
                storeQuantized(dst, i, min(max(value, low), high), signed: signed)
            }
        }
    }
}
