import Foundation
import LiteFormat

/// The fully integer LSTM of TensorFlow Lite ("8x8_16": int8 input, weights and output state, int16 cell
/// state and gates), bit for bit: unidirectional_sequence_lstm.cc's `PopulateQuantizedLstmParams8x8_16` and
/// `PopulatePrecomputedZPTimesWeightsWithBias` at prepare, lstm_eval.cc's `LstmStepInteger8x8_16` per step,
/// with the portable tensor_utils arithmetic.
///
/// Formats: gates before their activation are Q3.12 (or an intermediate's scale with layer norm); after the
/// sigmoid/tanh they are Q0.15. The cell state is int16 with a power-of-two scale 2^cellScale. The hidden value
/// `o · tanh(c)` is requantized to int8 with the fifth intermediate's scale, then projected (or copied) into
/// the int8 output state.
struct IntegerLSTM {
    /// `effective_*_scale_a/b`: a Q31 multiplier and shift.
    typealias Multiplier = (multiplier: Int32, shift: Int)

    let cells: Int, inputSize: Int, outputSize: Int
    let useCIFG: Bool, usePeepholes: Bool, useLayerNorm: Bool, useProjection: Bool
    /// Per gate i, f, c, o (index 0 unused with CIFG).
    var inputScales = [Multiplier](repeating: (0, 0), count: 4)
    var recurrentScales = [Multiplier](repeating: (0, 0), count: 4)
    var peepholeScales = [Multiplier](repeating: (0, 0), count: 4)
    var layerNormScales = [Multiplier](repeating: (0, 0), count: 4)
    var varianceGuards = [Int32](repeating: 0, count: 4)
    /// bias (without layer norm) − input_zp · Σ_k W_x[c, k], and −output_state_zp · Σ_k W_h[c, k].
    var inputEffectiveBias = [[Int32]](repeating: [], count: 4)
    var recurrentEffectiveBias = [[Int32]](repeating: [], count: 4)
    var projectionEffectiveBias: [Int32] = []
    var projectionScale: Multiplier = (0, 0)
    var hiddenScale: Multiplier = (0, 0)
    var hiddenZeroPoint: Int32 = 0
    var outputStateZeroPoint: Int32 = 0
    var cellScale = 0
    var quantizedCellClip: Int16 = 0
    var quantizedProjectionClip: Int8 = 0
    let sigmoid = MemoizedFixedPointFunction(FixedPoint16.sigmoid)
    let cellGateTanh = MemoizedFixedPointFunction { FixedPoint16.tanh($0, integerBits: 3) }
    let cellTanh: MemoizedFixedPointFunction

    /// `inputs` are the op's 24 inputs (nil where omitted), `intermediates` its five intermediate tensors.
    init(inputs: [Tensor?], output: Tensor, intermediates: [Tensor], options: SequenceLSTMOptions,
         inputSize: Int, cells: Int, outputSize: Int) throws {
        self.inputSize = inputSize
        self.cells = cells
        self.outputSize = outputSize
        useCIFG = inputs[1] == nil
        usePeepholes = inputs[11] != nil
        useLayerNorm = inputs[21] != nil
        useProjection = inputs[16] != nil
        guard cells > 0, outputSize > 0, inputSize > 0 else { throw KernelError.invalid("integer LSTM with an empty dimension") }
        guard intermediates.count == 5 else {
            throw KernelError.invalid("an integer LSTM needs 5 intermediate tensors, has \(intermediates.count)")
        }
        let gates = useCIFG ? [1, 2, 3] : [0, 1, 2, 3]
        func tensor(_ i: Int) throws -> Tensor {
            guard let t = inputs[i] else { throw KernelError.invalid("input \(i) is required") }
            return t
        }
        func expect(_ i: Int, _ type: TensorType, _ shape: [Int]) throws {
            let t = try tensor(i)
            guard t.type == type else { throw KernelError.unsupported("input \(i) has type \(t.type); the integer LSTM needs \(type)") }
            guard t.shape == shape else { throw KernelError.invalid("input \(i) has shape \(t.shape), expected \(shape)") }
            guard t.storage != .arena || t.isVariable else { throw KernelError.unsupported("input \(i) must be constant") }
        }
        for g in gates {
            try expect(1 + g, .int8, [cells, inputSize])
            try expect(5 + g, .int8, [cells, outputSize])
            try expect(12 + g, .int32, [cells])
            if usePeepholes && g != 2 { try expect(9 + (g == 3 ? 2 : g), .int16, [cells]) }
            if useLayerNorm { try expect(20 + g, .int16, [cells]) }
        }
        if useProjection {
            try expect(16, .int8, [outputSize, cells])
            if inputs[17] != nil { try expect(17, .int32, [outputSize]) }
        }
        let input = try tensor(0), outputState = try tensor(18), cellState = try tensor(19)
        guard outputState.type == .int8, cellState.type == .int16 else {
            throw KernelError.unsupported("integer LSTM states must be int8 (output) and int16 (cell), are \(outputState.type) and \(cellState.type)")
        }
        let scale = { (t: Tensor) throws -> Float in try QuantizedTensorInfo(t).scale }
        let zeroPoint = { (t: Tensor) throws -> Int32 in try QuantizedTensorInfo(t).zeroPoint }

        // CheckedLog2: the cell state's scale must be a power of two.
        let log2Scale = logf(try scale(cellState)) * (1 / logf(2))
        guard abs(log2Scale - log2Scale.rounded()) < 1e-3 else {
            throw KernelError.unsupported("integer LSTM cell state scale \(try scale(cellState)) is not a power of two")
        }
        cellScale = Int(log2Scale.rounded())
        // tanh(cell) runs with 15 + cellScale integer bits, which gemmlowp's ApplyTanh takes in 0...6.
        guard (0...6).contains(15 + cellScale) else { throw KernelError.unsupported("integer LSTM cell state scale 2^\(cellScale)") }

        if options.cellClip > 0 {
            quantizedCellClip = Int16(min(max(options.cellClip / (try scale(cellState)), -32768), 32767))
        }
        if options.projClip > 0 {
            quantizedProjectionClip = Int8(min(max(options.projClip / (try scale(output)), -128), 127))
        }

        // Gate scales: Q3.12 without layer norm, the intermediates' with it. All products in float, as TFLite.
        var intermediateScales = [Float](repeating: 1.0 / 4096, count: 4)
        if useLayerNorm { for g in 0..<4 { intermediateScales[g] = try scale(intermediates[g]) } }
        let hidden = intermediates[4]
        let hiddenTensorScale = try scale(hidden)
        hiddenZeroPoint = try zeroPoint(hidden)
        let inputScale = try scale(input), outputStateScale = try scale(outputState)
        outputStateZeroPoint = try zeroPoint(outputState)
        for g in gates {
            let inputWeightScale = try scale(try tensor(1 + g)), recurrentWeightScale = try scale(try tensor(5 + g))
            inputScales[g] = IntegerArithmetic.quantizeMultiplier(Double(inputWeightScale * inputScale / intermediateScales[g]))
            recurrentScales[g] = IntegerArithmetic.quantizeMultiplier(Double(recurrentWeightScale * outputStateScale / intermediateScales[g]))
            if usePeepholes && g != 2 {
                // std::pow(2, cell_scale) is a double, so this product and quotient are in double.
                let peephole = try scale(try tensor(9 + (g == 3 ? 2 : g)))
                let effective = Float(pow(2.0, Double(cellScale)) * Double(peephole) / Double(intermediateScales[g]))
                peepholeScales[g] = IntegerArithmetic.quantizeMultiplier(Double(effective))
            }
            let layerNormScale: Float = useLayerNorm ? try scale(try tensor(20 + g)) : 1
            layerNormScales[g] = IntegerArithmetic.quantizeMultiplier(Double(layerNormScale))
            varianceGuards[g] = max(1, Int32(min(10000 * layerNormScale, 2e9)))
        }
        let effectiveHidden = Float(pow(2.0, -15) / Double(hiddenTensorScale) * pow(2.0, -15))
        hiddenScale = IntegerArithmetic.quantizeMultiplier(Double(effectiveHidden))
        if useProjection {
            let projectionWeightScale = try scale(try tensor(16))
            projectionScale = IntegerArithmetic.quantizeMultiplier(Double(projectionWeightScale * hiddenTensorScale / outputStateScale))
        }

        // Zero points folded into biases. With layer norm the gate bias is added after normalisation instead.
        let inputZeroPoint = try zeroPoint(input)
        for g in gates {
            let bias: Tensor? = useLayerNorm ? nil : try tensor(12 + g)
            inputEffectiveBias[g] = Self.zeroPointTimesWeights(-inputZeroPoint, try tensor(1 + g), bias: bias)
            recurrentEffectiveBias[g] = Self.zeroPointTimesWeights(-outputStateZeroPoint, try tensor(5 + g), bias: nil)
        }
        if useProjection {
            // The hidden values carry +hidden_zp, taken back out here: -hidden_zp·Σw (checked against LiteRT by the
            // q_lstm_int8_projection goldens; reading the TF source had suggested +hidden_zp).
            projectionEffectiveBias = Self.zeroPointTimesWeights(-hiddenZeroPoint, try tensor(16), bias: inputs[17])
        }
        let tanhBits = 15 + cellScale
        cellTanh = MemoizedFixedPointFunction { FixedPoint16.tanh($0, integerBits: tanhBits) }
    }

    /// `PrecomputeZeroPointTimesWeightWithBias`: bias[r] + zeroPoint · Σ_c W[r, c], in wrapping int32.
    static func zeroPointTimesWeights(_ zeroPoint: Int32, _ weights: Tensor, bias: Tensor?) -> [Int32] {
        let rows = weights.dim(0), columns = weights.dim(1)
        let w = weights.pointer(Int8.self)
        var result = bias.map { Array(UnsafeBufferPointer(start: $0.pointer(Int32.self), count: rows)) } ?? [Int32](repeating: 0, count: rows)
        guard zeroPoint != 0 else { return result }
        for r in 0..<rows {
            var sum: Int32 = 0
            for c in 0..<columns { sum &+= Int32(w[r * columns + c]) }
            result[r] &+= sum &* zeroPoint
        }
        return result
    }

    /// Scratch bytes for one step of one batch row.
    var scratchBytes: Int { 6 * cells * 2 + cells }

    /// One time step for one batch row: reads `input` [inputSize], updates `outputState` [outputSize] and
    /// `cellState` [cells] in place, writes the new output state to `output`.
    func step(input: UnsafePointer<Int8>, weights: [UnsafePointer<Int8>?], recurrentWeights: [UnsafePointer<Int8>?],
              peepholes: [UnsafePointer<Int16>?], layerNorm: [UnsafePointer<Int16>?], biases: [UnsafePointer<Int32>?],
              projection: UnsafePointer<Int8>?, outputState: UnsafeMutablePointer<Int8>, cellState: UnsafeMutablePointer<Int16>,
              output: UnsafeMutablePointer<Int8>, scratch: UnsafeMutableRawPointer) {
        let C = cells
        let gates = scratch.assumingMemoryBound(to: Int16.self)
        @inline(__always) func gate(_ g: Int) -> UnsafeMutablePointer<Int16> { gates + g * C }
        let cellTanhValues = gates + 4 * C
        let hidden = (scratch + 5 * C * 2).assumingMemoryBound(to: Int8.self)

        func computeGate(_ g: Int) {
            let out = gate(g)
            Self.matrixVectorAccumulate(input, weights[g]!, bias: inputEffectiveBias[g], inputScales[g], rows: C, columns: inputSize, into: out, initialize: true)
            Self.matrixVectorAccumulate(UnsafePointer(outputState), recurrentWeights[g]!, bias: recurrentEffectiveBias[g], recurrentScales[g],
                                        rows: C, columns: outputSize, into: out, initialize: false)
            if usePeepholes, let p = peepholes[g] {
                for c in 0..<C {
                    let product = IntegerArithmetic.multiplyByQuantizedMultiplier(Int32(p[c]) * Int32(cellState[c]), peepholeScales[g].multiplier, peepholeScales[g].shift)
                    out[c] = Int16(min(max(product + Int32(out[c]), -32768), 32767))
                }
            }
            if useLayerNorm, let coefficients = layerNorm[g] {
                Self.layerNorm(out, coefficients: coefficients, bias: biases[g]!, count: C, scale: layerNormScales[g], varianceGuard: varianceGuards[g])
            }
            let activation = g == 2 ? cellGateTanh : sigmoid
            for c in 0..<C { out[c] = activation(out[c]) }
        }

        if !useCIFG { computeGate(0) }
        computeGate(1)
        computeGate(2)
        // UpdateLstmCellInteger: c = f·c >> 15 + (i or 1-f)·g >> (30 + cellScale), each product rounded.
        let f = gate(1), g = gate(2), i = gate(0)
        let cellShift = 30 + cellScale
        for c in 0..<C {
            let kept = Int16(truncatingIfNeeded: IntegerArithmetic.roundingDivideByPOT(Int32(f[c]) * Int32(cellState[c]), 15))
            let inputGate = useCIFG ? Int32(32767 - Int32(f[c])) : Int32(i[c])
            let added = Int16(truncatingIfNeeded: IntegerArithmetic.roundingDivideByPOT(inputGate * Int32(g[c]), cellShift))
            var value = Int16(min(max(Int32(kept) + Int32(added), -32768), 32767))
            if quantizedCellClip > 0 { value = min(max(value, -quantizedCellClip), quantizedCellClip) }
            cellState[c] = value
        }
        computeGate(3)

        // CalculateLstmOutputInteger8x8_16: hidden = o · tanh(c), requantized to int8.
        for c in 0..<C { cellTanhValues[c] = cellTanh(cellState[c]) }
        let o = gate(3)
        for c in 0..<C {
            var value = IntegerArithmetic.multiplyByQuantizedMultiplier(Int32(o[c]) * Int32(cellTanhValues[c]), hiddenScale.multiplier, hiddenScale.shift)
            value += hiddenZeroPoint
            hidden[c] = Int8(min(max(value, -128), 127))
        }
        if let projection {
            Self.withDotProducts(UnsafePointer(hidden), projection, rows: outputSize, columns: C) { dot in
                for r in 0..<outputSize {
                    let acc = projectionEffectiveBias[r] &+ dot(r)
                    var value = IntegerArithmetic.multiplyByQuantizedMultiplier(acc, projectionScale.multiplier, projectionScale.shift)
                        + outputStateZeroPoint
                    value = min(max(value, -128), 127)
                    if quantizedProjectionClip > 0 { value = min(max(value, -Int32(quantizedProjectionClip)), Int32(quantizedProjectionClip)) }
                    outputState[r] = Int8(value)
                }
            }
        } else {
            outputState.update(from: hidden, count: outputSize)
        }
        output.update(from: outputState, count: outputSize)
    }

    /// `MatrixBatchVectorMultiplyAccumulate` into int16: out[r] = sat16(rescale(bias[r] + Σ_c W[r, c]·x[c]) + out[r]).
    @inline(__always)
    static func matrixVectorAccumulate(_ x: UnsafePointer<Int8>, _ w: UnsafePointer<Int8>, bias: [Int32], _ scale: Multiplier,
                                       rows: Int, columns: Int, into out: UnsafeMutablePointer<Int16>, initialize: Bool) {
        bias.withUnsafeBufferPointer { bias in
            #if arch(x86_64)
            if let kernel = matrixVectorKernel, scale.multiplier >= 0, (-31...30).contains(scale.shift) {
                kernel(x, w, bias.baseAddress, rows, columns, scale.multiplier, Int32(scale.shift), out, initialize ? 0 : 1)
                return
            }
            #endif
            withDotProducts(x, w, rows: rows, columns: columns) { dot in
                for r in 0..<rows {
                    let acc = bias[r] &+ dot(r)
                    let previous: Int32 = initialize ? 0 : Int32(out[r])
                    let value = IntegerArithmetic.multiplyByQuantizedMultiplier(acc, scale.multiplier, scale.shift) + previous
                    out[r] = Int16(min(max(value, -32768), 32767))
                }
            }
        }
    }

    #if arch(x86_64)
    /// The configuration's int8 matrix-vector kernel, looked up once per process.
    private static let dotRowsKernel = KernelConfiguration.current.widenedQuantized?.dotRows
    private static let matrixVectorKernel = KernelConfiguration.current.widenedQuantized?.matrixVectorAccumulate
    #endif

    /// Calls `body` with a function giving `Σ_c x[c]·w[r·columns + c]` for each row r: computed for all rows at once
    /// by the AVX2 kernel where the configuration has it (``WidenedQuantizedKernels/dotRows``), else row by row.
    /// Integer sums do not depend on their order, so both give the same values.
    @inline(__always)
    static func withDotProducts(_ x: UnsafePointer<Int8>, _ w: UnsafePointer<Int8>, rows: Int, columns: Int, _ body: ((Int) -> Int32) -> Void) {
        #if arch(x86_64)
        if let dotRows = dotRowsKernel {
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: rows) { sums in
                dotRows(x, w, rows, columns, sums.baseAddress)
                body { sums[$0] }
            }
            return
        }
        #endif
        body { r in
            var acc: Int32 = 0
            let row = w + r * columns
            for c in 0..<columns { acc &+= Int32(x[c]) * Int32(row[c]) }
            return acc
        }
    }

    /// `ApplyLayerNorm` (integer): mean and variance in 64-bit with 10 extra bits, the inverse square root as a
    /// fixed-point multiplier, then weight, bias and scale.
    static func layerNorm(_ values: UnsafeMutablePointer<Int16>, coefficients: UnsafePointer<Int16>, bias: UnsafePointer<Int32>,
                          count: Int, scale: Multiplier, varianceGuard: Int32) {
        let twoToThe20: Int32 = 1 << 20
        var sum: Int64 = 0, sumSquares: Int64 = 0
        for j in 0..<count {
            let v = Int32(values[j])
            sum += Int64(v)
            sumSquares += Int64(v * v)
        }
        let mean = Int32(truncatingIfNeeded: sum * 1024 / Int64(count))
        // TFLite's variance is exact only for power-of-two counts; this reproduces it for any count.
        let perElement = twoToThe20 / Int32(count)
        let variance = sumSquares * Int64(perElement) - Int64(mean) * Int64(mean)
        var variance2 = Int32(truncatingIfNeeded: variance / Int64(twoToThe20))
        if variance2 < 1 { variance2 = varianceGuard }
        let (inverseMultiplier, inverseShift) = inverseSqrtMultiplier(variance2)
        for j in 0..<count {
            let shifted = 1024 &* Int32(values[j]) &- mean
            let rescaled = IntegerArithmetic.multiplyByQuantizedMultiplier(shifted, inverseMultiplier, inverseShift)
            // In TFLite this product and sum are int32 arithmetic, widened only afterwards.
            let weighted = Int64(rescaled &* Int32(coefficients[j]) &+ bias[j])
            let rounded = Int32(truncatingIfNeeded: (weighted > 0 ? weighted + 512 : weighted - 512) / 1024)
            let value = IntegerArithmetic.multiplyByQuantizedMultiplier(rounded, scale.multiplier, scale.shift + 12)
            values[j] = Int16(min(max(value, -32768), 32767))
        }
    }

    /// `GetInvSqrtQuantizedMultiplierExp(input, reverse_shift: -1)`: 1/sqrt(input) as a Q31 multiplier and a
    /// (left) shift, by five Newton-Raphson steps in gemmlowp's int32 Q3.28.
    static func inverseSqrtMultiplier(_ value: Int32) -> (Int32, Int) {
        var input = value
        if input <= 1 { return (.max, 0) }
        var shift = 11
        while input >= 1 << 29 {
            input /= 4
            shift += 1
        }
        let maxLeftShiftBits = UInt32(input).leadingZeroBitCount - 1
        let leftShiftBitPairs = maxLeftShiftBits / 2 - 1
        shift -= leftShiftBitPairs
        input <<= Int32(2 * leftShiftBitPairs)
        let srdhm = IntegerArithmetic.saturatingRoundingDoublingHighMul
        func leftShiftSaturating(_ x: Int32, _ exponent: Int) -> Int32 {
            let threshold = Int32((1 << (31 - exponent)) - 1)
            if x > threshold { return .max }
            if x < -threshold { return .min }
            return x << Int32(exponent)
        }
        let fixedInput = input >> 1
        let halfInput = IntegerArithmetic.roundingDivideByPOT(fixedInput, 1)
        let halfThree: Int32 = (1 << 28) + (1 << 27)
        var x: Int32 = 1 << 28
        for _ in 0..<5 {
            let x3 = leftShiftSaturating(srdhm(srdhm(x, x), x), 6)
            x = leftShiftSaturating(srdhm(halfThree, x) &- srdhm(halfInput, x3), 3)
        }
        x = srdhm(x, 1518500250)
        if shift < 0 {
            x <<= Int32(-shift)
            shift = 0
        }
        return (x, -shift)
    }
}
