import Foundation
import LiteFormat

/// REDUCE_PROD, REDUCE_MAX and REDUCE_MIN over the axes of the second (constant) input, with keep_dims, for
/// float32, int32 and int64, and REDUCE_MAX/MIN also for uint8/int8/int16 stored values (TFLite's reference reducer: the identity element, then every input value combined
/// into its output slot in input order). Empty reductions give the identity (1, -inf/lowest, +inf/highest).
class ReduceCombining: Reduce {
    func combine(_ a: Float, _ b: Float) -> Float { fatalError("subclass") }
    func combine(_ a: Int64, _ b: Int64) -> Int64 { fatalError("subclass") }
    var floatIdentity: Float { fatalError("subclass") }
    var integerIdentity: Int64 { fatalError("subclass") }

    override var foldsAtPlanning: Bool { true }

    /// Whether uint8/int8/int16 stored values are combined as they are (REDUCE_MAX and REDUCE_MIN, whose input and
    /// output share one scale and zero point, as TFLite requires).
    var comparesStoredValues: Bool { false }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        if comparesStoredValues, input.type == .int8 || input.type == .uint8 || input.type == .int16 {
            let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
            guard output.type == input.type, qi.scale == qo.scale, qi.zeroPoint == qo.zeroPoint else {
                throw KernelError.unsupported("\(node.code) of \(input.type) into another type or quantization")
            }
        } else {
            try expectType(input, .float32, .int32, .int64)
        }
        axes = try reducedAxes(of: input)
        output.type = input.type
        output.shape = reducedShape(of: input)
    }

    /// The identity for stored values: the type's lowest (REDUCE_MAX) or highest (REDUCE_MIN) value.
    func storedIdentity(_ range: (Int32, Int32)) -> Int64 { fatalError("subclass") }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let count = output.elementCount
        switch input.type {
        case .int16:
            let src = input.pointer(Int16.self), dst = output.pointer(Int16.self)
            var wide = [Int64](repeating: storedIdentity((-32768, 32767)), count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(src[i])) }
            for o in 0..<count { dst[o] = Int16(truncatingIfNeeded: wide[o]) }
        case .int8, .uint8:
            let signed = input.type == .int8, src = UnsafeRawPointer(input.data!), dst = output.data!
            var wide = [Int64](repeating: storedIdentity(signed ? (-128, 127) : (0, 255)), count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(loadQuantized(src, i, signed: signed))) }
            for o in 0..<count { storeQuantized(dst, o, Int32(wide[o]), signed: signed) }
        case .float32:
            let src = input.floats, dst = output.floats
            dst.update(repeating: floatIdentity, count: count)
            forEachInputElement(input.shape) { i, o in dst[o] = combine(dst[o], src[i]) }
        case .int32:
            let src = input.data!.assumingMemoryBound(to: Int32.self), dst = output.data!.assumingMemoryBound(to: Int32.self)
            var wide = [Int64](repeating: integerIdentity, count: count)
            forEachInputElement(input.shape) { i, o in wide[o] = combine(wide[o], Int64(src[i])) }
            // Wraps as int32 arithmetic does in TFLite's kernel.
            for o in 0..<count { dst[o] = Int32(truncatingIfNeeded: wide[o]) }
        default:
            let src = input.data!.assumingMemoryBound(to: Int64.self), dst = output.data!.assumingMemoryBound(to: Int64.self)
            dst.update(repeating: integerIdentity, count: count)
            forEachInputElement(input.shape) { i, o in dst[o] = combine(dst[o], src[i]) }
        }
    }
}

/// REDUCE_PROD; int8 and int16 (16x8) as TFLite's quantized product (reduce.cc `EvalQuantizedProd`): each output
/// starts at its first input less the zero point, and every further input in input order multiplies it in 64 bits,
/// rescaled at once (`MultiplyByQuantizedMultiplier` of the int64 product) by `input_scale / output_scale^(1/n)` for n
/// values a product, so the accumulator stays in int32; one more rescale by the same multiplier ends it, then the
/// output zero point and the clamp. The rounding at every step makes the order part of the result.
final class ReduceProd: ReduceCombining {
    /// The path `run` takes, chosen by `prepare` from the input's type.
    private enum ProductPlan {
        /// float32, int32, int64: ``ReduceCombining``'s products.
        case combined
        /// int8, int16: the rescaled integer products described above.
        case quantized((multiplier: Int32, shift: Int, inputZeroPoint: Int32, outputZeroPoint: Int32))
    }

    private var productPlan = ProductPlan.combined

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        guard input.type == .int8 || input.type == .int16 else {
            productPlan = .combined
            return try super.prepare()
        }
        guard output.type == input.type else { throw KernelError.unsupported("REDUCE_PROD of \(input.type) into \(output.type)") }
        if input.type == .int16 { try Int16Activations.expectSymmetric(input, output) }
        axes = try reducedAxes(of: input)
        output.shape = reducedShape(of: input)
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        let count = output.elementCount > 0 ? input.elementCount / output.elementCount : 1
        let scaling = Double(qi.scale) / Foundation.pow(Double(qo.scale), 1.0 / Double(max(count, 1)))
        let (multiplier, shift) = IntegerArithmetic.quantizeMultiplier(scaling)
        try Int16Activations.checkShift(shift, "REDUCE_PROD")
        productPlan = .quantized((multiplier, shift, qi.zeroPoint, qo.zeroPoint))
    }

    override func run(_ context: RunContext) throws {
        switch productPlan {
        case .combined: try super.run(context)
        case .quantized(let q): try runQuantized(q)
        }
    }

    private func runQuantized(_ q: (multiplier: Int32, shift: Int, inputZeroPoint: Int32, outputZeroPoint: Int32)) throws {
        let input = node.inputs[0]!, output = node.outputs[0], count = output.elementCount
        var products = [Int32](repeating: 0, count: count), started = [Bool](repeating: false, count: count)
        @inline(__always) func value(_ i: Int) -> Int32 {
            input.type == .int8 ? Int32(input.pointer(Int8.self)[i]) : Int32(input.pointer(Int16.self)[i])
        }
        forEachInputElement(input.shape) { i, o in
            let x = value(i) - q.inputZeroPoint
            if started[o] {
                products[o] = Int16Activations.multiplyByQuantizedMultiplier(Int64(products[o]) * Int64(x), q.multiplier, q.shift)
            } else {
                products[o] = x
                started[o] = true
            }
        }
        let (low, high) = try quantizedRange(input.type)
        for o in 0..<count {
            let result = min(max(Int16Activations.multiplyByQuantizedMultiplier(Int64(products[o]), q.multiplier, q.shift) &+ q.outputZeroPoint, low), high)
            if input.type == .int8 { output.pointer(Int8.self)[o] = Int8(truncatingIfNeeded: result) } else { output.pointer(Int16.self)[o] = Int16(truncatingIfNeeded: result) }
        }
    }

    override func combine(_ a: Float, _ b: Float) -> Float { a * b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { a &* b }
    override var floatIdentity: Float { 1 }
    override var integerIdentity: Int64 { 1 }
}

final class ReduceMax: ReduceCombining {
    override var comparesStoredValues: Bool { true }
    override func storedIdentity(_ range: (Int32, Int32)) -> Int64 { Int64(range.0) }
    override func combine(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { max(a, b) }
    override var floatIdentity: Float { -.greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.min) : .min }
}

final class ReduceMin: ReduceCombining {
    override var comparesStoredValues: Bool { true }
    override func storedIdentity(_ range: (Int32, Int32)) -> Int64 { Int64(range.1) }
    override func combine(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
    override func combine(_ a: Int64, _ b: Int64) -> Int64 { min(a, b) }
    override var floatIdentity: Float { .greatestFiniteMagnitude }
    override var integerIdentity: Int64 { node.inputs[0]?.type == .int32 ? Int64(Int32.max) : .max }
}
