import Foundation
import LiteFormat

/// A 256-entry table mapping every uint8/int8 input to its output, built as TFLite's `PopulateLookupTable`
/// builds it: dequantize in float, apply `transform` in float, `round` (half away from zero) onto the output
/// scale, add the zero point, clamp. int16 inputs (16x8 models) take a 65,536-entry table from an exact integer function.
struct QuantizedLookupTable {
    var table: [UInt8] = []
    var signed = false
    /// int16: every input's output, indexed by the input's bit pattern (empty for 8-bit tables).
    var wideTable: [Int16] = []

    init(input: Tensor, output: Tensor, transform: (Float) -> Float) throws {
        guard input.type == .uint8 || input.type == .int8, output.type == input.type else {
            throw KernelError.unsupported("\(input.type) input into \(output.type)")
        }
        let qi = try QuantizedTensorInfo(input), qo = try QuantizedTensorInfo(output)
        signed = input.type == .int8
        let (minimum, maximum): (Int32, Int32) = signed ? (-128, 127) : (0, 255)
        let inverseScale = 1 / qo.scale
        var table = [UInt8](repeating: 0, count: 256)
        for value in minimum...maximum {
            let dequantized = qi.scale * Float(value - qi.zeroPoint)
            let rescaled = (transform(dequantized) * inverseScale).rounded(.toNearestOrAwayFromZero)
            let quantized = Int32(exactly: (rescaled + Float(qo.zeroPoint)).rounded(.towardZero)) ?? (rescaled > 0 ? maximum : minimum)
            table[Int(UInt8(truncatingIfNeeded: value))] = UInt8(truncatingIfNeeded: min(max(quantized, minimum), maximum))
        }
        self.table = table
    }

    /// A table from an exact integer function of the stored input value (already clamped to the output type); int16
    /// for `type` .int16, else uint8/int8 by `signed`.
    init(type: TensorType, function: (Int32) -> Int32) {
        if type == .int16 {
            signed = true
            wideTable = (0..<65536).map { pattern in Int16(truncatingIfNeeded: function(Int32(Int16(truncatingIfNeeded: pattern)))) }
        } else {
            self = QuantizedLookupTable(signed: type == .int8, function: function)
        }
    }

    /// A table from an exact integer function of the stored input value (already clamped to the output type).
    init(signed: Bool, function: (Int32) -> Int32) {
        self.signed = signed
        var table = [UInt8](repeating: 0, count: 256)
        for value in (signed ? -128 : 0)...(signed ? 127 : 255) {
            table[Int(UInt8(truncatingIfNeeded: value))] = UInt8(truncatingIfNeeded: function(Int32(value)))
        }
        self.table = table
    }

    /// Each output value looked up from its input value, split over `threads` (each value on its own, so any split
    /// gives the same result).
    func apply(_ input: Tensor, _ output: Tensor, threads: Int) {
        let count = input.elementCount
        if !wideTable.isEmpty {
            let src = input.pointer(UInt16.self), dst = output.pointer(Int16.self)
            wideTable.withUnsafeBufferPointer { t in
                parallelFor(count, threads: threads, minimumChunk: 4096, workPerItem: 2) { range in
                    for i in range { dst[i] = t[Int(src[i])] }
                }
            }
            return
        }
        let src = input.data!.assumingMemoryBound(to: UInt8.self), dst = output.data!.assumingMemoryBound(to: UInt8.self)
        table.withUnsafeBufferPointer { t in
            parallelFor(count, threads: threads, minimumChunk: 1 << 12, workPerItem: 1) { range in
                Self.lookUp(t.baseAddress!, src + range.lowerBound, dst + range.lowerBound, count: range.count)
            }
        }
    }

    /// `output[i] = table[input[i]]` for `count` bytes, 32 or 64 at a time from the avx2 level up
    /// (``ElementwiseKernels/lookupU8``).
    static func lookUp(_ table: UnsafePointer<UInt8>, _ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, count: Int) {
        #if arch(x86_64)
        if let lookup = KernelConfiguration.current.elementwise?.lookupU8 { return lookup(table, input, output, count) }
        #endif
        for i in 0..<count { output[i] = table[Int(input[i])] }
    }
}
