import CLiteKernels
import Foundation
import LiteFormat

/// The float LSTM of lstm_eval.cc over one direction of a sequence, shared by UNIDIRECTIONAL_SEQUENCE_LSTM and
/// both directions of BIDIRECTIONAL_SEQUENCE_LSTM. `tensors` follows the unidirectional op's 24-input layout
/// (tensorflow/lite/kernels/lstm_shared.h):
///
///     1-4 input weights i, f, c, o [C, I]      5-8 recurrent weights i, f, c, o [C, O]
///     9-11 peepholes i, f, o [C] (optional)    12-15 gate biases i, f, c, o [C]
///     16 projection weights [O, C], 17 projection bias [O] (optional)
///     18 output state [B, O], 19 cell state [B, C] (variables: kept across invocations)
///     20-23 layer-norm weights i, f, c, o [C] (optional)
///
/// No input-gate weights means CIFG (input gate = 1 - forget gate). Per step, as lstm_eval.cc's float path:
/// gates = W_x·x + W_h·h (+ peephole·c_prev for i and f); with layer norm the gate is normalised over the
/// cells (variance + 1e-8), scaled, then biased; otherwise biased directly. i, f, o use the sigmoid, the cell
/// gate uses the fused activation; c = f·c_prev + i·g, clipped to ±cell_clip; o takes its peephole from the
/// new c; h = o·act(c), projected and clipped to ±proj_clip when there is a projection.
///
/// Speed: the input contributions W_x·x of all time steps are four sgemm calls before the time loop; each
/// step then does the recurrent product W_h·h of all gates at once over the gates' weights stacked into one
/// matrix (`StackedGateWeights`: one sgemv, or one sgemm for a batch), or, for weights that are not constant
/// or very large, one sgemm per gate (SIMD matrix-vector products when the step is small).
struct FloatLSTM {
    let tensors: [Tensor?]
    let activation: (Float) -> Float
    let isTanh: Bool
    let cellClip: Float, projClip: Float
    let inputSize: Int, cells: Int, outputSize: Int
    /// The recurrent weights of all gates in one matrix (nil when they are not small constant float32 matrices).
    let stackedRecurrentWeights: StackedGateWeights?

    var hasInputGate: Bool { tensors[1] != nil }
    var hasPeepholes: Bool { tensors[10] != nil }
    var hasProjection: Bool { tensors[16] != nil }
    var hasLayerNorm: Bool { tensors[21] != nil }

    /// The fused activation in place over `count` values (tanh vectorized, see VectorMath.swift).
    @inline(__always)
    func applyCellActivation(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
        if isTanh { applyTanh(values, count) } else { for c in 0..<count { values[c] = activation(values[c]) } }
    }

    /// The fused activation of the cell gate and the cell output.
    static func activation(_ activation: FusedActivation) throws -> (Float) -> Float {
        switch activation {
        case .tanh: return { tanhf($0) }
        case .relu: return { max($0, 0) }
        case .relu6: return { min(max($0, 0), 6) }
        case .reluN1To1: return { min(max($0, -1), 1) }
        case .none: return { $0 }
        case .signBit: throw KernelError.unsupported("activation SIGN_BIT")
        }
    }

    /// Reads the sizes from the weights and checks every tensor's type and shape. `weightsMayBeInt8`: the hybrid
    /// path, whose int8 weights `HybridLSTM` checks. `previous`: this op's cell before a re-prepare, whose
    /// stacked recurrent weights are kept when they were made from the same weights.
    init(tensors: [Tensor?], activation: FusedActivation, cellClip: Float, projClip: Float, inputSize: Int, batches: Int,
         weightsMayBeInt8: Bool = false, previous: FloatLSTM? = nil) throws {
        precondition(tensors.count == 24)
        self.tensors = tensors
        self.activation = try Self.activation(activation)
        isTanh = activation == .tanh
        self.cellClip = cellClip
        self.projClip = projClip
        self.inputSize = inputSize
        guard let forgetWeights = tensors[2], forgetWeights.rank == 2, forgetWeights.dim(1) == inputSize else {
            throw KernelError.invalid("input-to-forget weights \(tensors[2]?.shape ?? []) do not fit input size \(inputSize)")
        }
        cells = forgetWeights.dim(0)
        guard let recurrent = tensors[6], recurrent.rank == 2, recurrent.dim(0) == cells else {
            throw KernelError.invalid("recurrent weights \(tensors[6]?.shape ?? []) do not fit \(cells) cells")
        }
        outputSize = recurrent.dim(1)
        let cells = self.cells, outputSize = self.outputSize
        func check(_ index: Int, _ shape: [Int], required: Bool) throws {
            guard let t = tensors[index] else {
                if required { throw KernelError.invalid("LSTM tensor \(index) is required") }
                return
            }
            if weightsMayBeInt8, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16].contains(index) { return }
            guard t.type == .float32 else { throw KernelError.unsupported("LSTM tensor \(index) has type \(t.type); supported: float32") }
            guard t.shape == shape else { throw KernelError.invalid("LSTM tensor \(index) has shape \(t.shape), expected \(shape)") }
        }
        let gates = tensors[1] != nil ? [1, 2, 3, 4] : [2, 3, 4]
        for g in gates { try check(g, [cells, inputSize], required: true) }
        for g in gates { try check(g + 4, [cells, outputSize], required: true) }
        for g in gates { try check(g + 11, [cells], required: true) }
        if tensors[10] != nil {
            if tensors[1] != nil { try check(9, [cells], required: true) }
            try check(10, [cells], required: true)
            try check(11, [cells], required: true)
        }
        if tensors[16] != nil {
            try check(16, [outputSize, cells], required: true)
            try check(17, [outputSize], required: false)
        } else {
            guard outputSize == cells else { throw KernelError.invalid("without projection the output size \(outputSize) must equal \(cells) cells") }
        }
        if tensors[21] != nil {
            for g in gates { try check(g + 19, [cells], required: true) }
        }
        guard let outputState = tensors[18], let cellState = tensors[19], outputState.isVariable, cellState.isVariable else {
            throw KernelError.invalid("the output and cell states must be variable tensors")
        }
        guard outputState.type == .float32, cellState.type == .float32 else {
            throw KernelError.unsupported("LSTM states have types \(outputState.type), \(cellState.type); supported: float32")
        }
        guard outputState.elementCount == batches * outputSize, cellState.elementCount == batches * cells else {
            throw KernelError.invalid("states \(outputState.shape) and \(cellState.shape) do not fit batch \(batches)")
        }
        let recurrentWeights = gates.map { tensors[$0 + 4]! }
        if let kept = previous?.stackedRecurrentWeights, kept.isMade(from: recurrentWeights) {
            stackedRecurrentWeights = kept
        } else {
            stackedRecurrentWeights = StackedGateWeights(gateWeights: recurrentWeights, cells: cells, depth: outputSize)
        }
    }

    /// Input contributions of 4 gates for all steps, recurrent gates of one step, and the pre-projection output.
    func scratchBytes(steps: Int, batches: Int) -> Int {
        saturatingProduct(4, max(steps * batches, 1), max(cells, 1), 4) + saturatingProduct(5, max(batches, 1), max(cells, 1), 4)
    }

    /// Runs the sequence `x` ([T, B, I] time-major or [B, T, I]) through the cell, from the last step to the first
    /// when `reverse`, updating the states in place. Output row (t, b) starts at
    /// `output + row·outputStride + outputOffset` where row is t·B+b (time-major) or b·T+t.
    func run(_ x: UnsafePointer<Float>, steps T: Int, batches B: Int, timeMajor: Bool, reverse: Bool,
             output out: UnsafeMutablePointer<Float>, outputStride: Int, outputOffset: Int,
             scratch rawScratch: UnsafeMutableRawPointer, threads: Int) {
        let (I, C, O) = (inputSize, cells, outputSize)
        guard B > 0, T > 0 else { return }
        let scratch = rawScratch.assumingMemoryBound(to: Float.self)
        let inputGates = (0..<4).map { scratch + $0 * T * B * C }
        // One step's gates batch by batch, [B, 4, C], so that one batch's gates are one contiguous row.
        let stepRows = scratch + 4 * T * B * C
        let hidden = scratch + 4 * T * B * C + 4 * B * C
        let gates = hasInputGate ? [0, 1, 2, 3] : [1, 2, 3]
        let weights = { (g: Int) -> UnsafePointer<Float> in UnsafePointer(self.tensors[1 + g]!.floats) }
        let recurrentWeights = { (g: Int) -> UnsafePointer<Float> in UnsafePointer(self.tensors[5 + g]!.floats) }

        // The input contributions of every step, in (time, batch) row order.
        for g in gates {
            if timeMajor || B == 1 {
                BLAS.sgemm(transposeB: true, m: T * B, n: C, k: I, a: x, lda: I, b: weights(g), ldb: I, c: inputGates[g], ldc: C, threads: threads)
            } else {
                for b in 0..<B {
                    // Batch-major: row t of batch b becomes row t*B+b.
                    BLAS.sgemm(transposeB: true, m: T, n: C, k: I, a: x + b * T * I, lda: I, b: weights(g), ldb: I,
                               c: inputGates[g] + b * C, ldc: B * C, threads: threads)
                }
            }
        }

        let floats = { (i: Int) in self.tensors[i].map { UnsafePointer($0.floats) } }
        let outputState = tensors[18]!.floats, cellState = tensors[19]!.floats
        let bias = (0..<4).map { floats(12 + $0) }
        let peephole = (0..<3).map { floats(9 + $0) }
        let norm = (0..<4).map { floats(20 + $0) }
        let projection = floats(16), projectionBias = floats(17)
        // Below this many multiply-adds per gate and step a BLAS call costs more than the arithmetic; above it
        // OpenBLAS wins.
        let smallRecurrence = B * C * O <= 4096
        let firstGate = gates[0]
        #if arch(x86_64)
        // With a tanh cell, a level's kernel does each step's gate arithmetic for the whole batch in one call
        // (``KernelConfiguration/FloatKernels/lstmStep``); the loop below is the portable path.
        let stepKernel = isTanh ? KernelConfiguration.current.float?.lstmStep : nil
        var cellLayout = lite_f32_lstm_cell(
            cells: C, input_bias: bias[0], forget_bias: bias[1], cell_bias: bias[2], output_bias: bias[3],
            input_norm: norm[0], forget_norm: norm[1], cell_norm: norm[2], output_norm: norm[3],
            input_peephole: hasPeepholes && hasInputGate ? peephole[0] : nil, forget_peephole: hasPeepholes ? peephole[1] : nil,
            output_peephole: hasPeepholes ? peephole[2] : nil, cell_clip: cellClip, has_input_gate: hasInputGate ? 1 : 0)
        #endif

        for step in 0..<T {
            let t = reverse ? T - 1 - step : step
            // gates = W_x·x_t + W_h·h_prev for the whole batch.
            for b in 0..<B {
                for g in gates { (stepRows + (b * 4 + g) * C).update(from: inputGates[g] + (t * B + b) * C, count: C) }
            }
            if let stacked = stackedRecurrentWeights {
                if B == 1 {
                    BLAS.sgemvAccumulate(m: stacked.rows, n: O, a: stacked.values, lda: O, x: outputState, y: stepRows + firstGate * C, threads: threads)
                } else {
                    BLAS.sgemm(transposeB: true, m: B, n: stacked.rows, k: O, a: outputState, lda: O, b: stacked.values, ldb: O,
                               beta: 1, c: stepRows + firstGate * C, ldc: 4 * C, threads: threads)
                }
            } else {
                for g in gates {
                    if smallRecurrence {
                        for b in 0..<B {
                            matrixVectorAccumulate(recurrentWeights(g), rows: C, columns: O, outputState + b * O, into: stepRows + (b * 4 + g) * C)
                        }
                    } else {
                        BLAS.sgemm(transposeB: true, m: B, n: C, k: O, a: outputState, lda: O, b: recurrentWeights(g), ldb: O,
                                   beta: 1, c: stepRows + g * C, ldc: 4 * C, threads: threads)
                    }
                }
            }
            #if arch(x86_64)
            if let stepKernel {
                stepKernel(&cellLayout, B, stepRows, cellState, hasProjection ? hidden : outputState, hasProjection ? C : O)
            } else {
                gateArithmetic(B, stepRows: stepRows, cellState: cellState, hidden: hidden, outputState: outputState,
                               bias: bias, peephole: peephole, norm: norm)
            }
            #else
            gateArithmetic(B, stepRows: stepRows, cellState: cellState, hidden: hidden, outputState: outputState,
                           bias: bias, peephole: peephole, norm: norm)
            #endif
            if let projection {
                if smallRecurrence {
                    outputState.update(repeating: 0, count: B * O)
                    for b in 0..<B { matrixVectorAccumulate(projection, rows: O, columns: C, hidden + b * C, into: outputState + b * O) }
                } else {
                    BLAS.sgemm(transposeB: true, m: B, n: O, k: C, a: hidden, lda: C, b: projection, ldb: C, c: outputState, ldc: O, threads: threads)
                }
                for b in 0..<B {
                    let h = outputState + b * O
                    if let projectionBias { for k in 0..<O { h[k] += projectionBias[k] } }
                    if projClip > 0 { for k in 0..<O { h[k] = min(max(h[k], -projClip), projClip) } }
                }
            }
            for b in 0..<B {
                let destination = out + (timeMajor ? t * B + b : b * T + t) * outputStride + outputOffset
                destination.update(from: outputState + b * O, count: O)
            }
        }
    }

    /// One step's gate arithmetic for `B` batch rows after the matrix products (the portable path of
    /// ``KernelConfiguration/FloatKernels/lstmStep``): `stepRows` holds each row's pre-activations i, f, c, o; the cell
    /// states are updated and each row's hidden state written to `hidden` (with a projection) or `outputState`.
    private func gateArithmetic(_ B: Int, stepRows: UnsafeMutablePointer<Float>, cellState: UnsafeMutablePointer<Float>,
                                hidden: UnsafeMutablePointer<Float>, outputState: UnsafeMutablePointer<Float>,
                                bias: [UnsafePointer<Float>?], peephole: [UnsafePointer<Float>?], norm: [UnsafePointer<Float>?]) {
        let (C, O) = (cells, outputSize)
        let gates = hasInputGate ? [0, 1, 2, 3] : [1, 2, 3]
        for b in 0..<B {
            let cell = cellState + b * C
            let row = { (g: Int) in stepRows + (b * 4 + g) * C }
            if hasPeepholes {
                if hasInputGate, let p = peephole[0] { for c in 0..<C { row(0)[c] += p[c] * cell[c] } }
                if let p = peephole[1] { for c in 0..<C { row(1)[c] += p[c] * cell[c] } }
            }
            for g in gates where g != 3 {
                FloatLSTM.finishGate(row(g), C, norm: norm[g], bias: bias[g])
            }
            let i = row(0), f = row(1), gCell = row(2)
            applySigmoid(f, C)
            if hasInputGate { applySigmoid(i, C) }
            applyCellActivation(gCell, C)
            for c in 0..<C {
                let inputGate = hasInputGate ? i[c] : 1 - f[c]
                var value = f[c] * cell[c] + inputGate * gCell[c]
                if cellClip > 0 { value = min(max(value, -cellClip), cellClip) }
                cell[c] = value
            }
            let o = row(3)
            if hasPeepholes, let p = peephole[2] { for c in 0..<C { o[c] += p[c] * cell[c] } }
            FloatLSTM.finishGate(o, C, norm: norm[3], bias: bias[3])
            let h = hasProjection ? hidden + b * C : outputState + b * O
            applySigmoid(o, C)
            h.update(from: cell, count: C)
            applyCellActivation(h, C)
            for c in 0..<C { h[c] *= o[c] }
        }
    }

    /// Layer-normalises (if `norm` is given) and adds the bias, as lstm_eval.cc does before the activation.
    @inline(__always)
    static func finishGate(_ gate: UnsafeMutablePointer<Float>, _ count: Int, norm: UnsafePointer<Float>?, bias: UnsafePointer<Float>?) {
        if let norm {
            var sum: Float = 0, sumSquares: Float = 0
            for c in 0..<count { sum += gate[c]; sumSquares += gate[c] * gate[c] }
            let mean = sum / Float(count)
            let variance = sumSquares / Float(count) - mean * mean
            let inverse = 1 / (variance + 1e-8).squareRoot()
            for c in 0..<count { gate[c] = (gate[c] - mean) * inverse * norm[c] }
        }
        if let bias { for c in 0..<count { gate[c] += bias[c] } }
    }
}

/// The recurrent weights of an LSTM's gates stacked into one row-major [gates × cells, depth] matrix, so that
/// one sgemv adds W_g·h for all gates of a step: a call per step instead of one per gate (for 96 cells the call
/// costs more than its arithmetic, so a call per gate would multiply that overhead). Built once per
/// model from constant weights (an op re-prepared for a new sequence length keeps it).
final class StackedGateWeights: @unchecked Sendable {
    let values: UnsafeMutablePointer<Float>
    /// gates × cells.
    let rows: Int
    /// The weight tensors' bytes these were copied from (to tell whether they still apply).
    let sources: [UnsafeRawPointer]

    /// Largest weights copied (1 MB); larger ones take one sgemm per gate, whose call cost is small beside them.
    static let maximumElements = 1 << 18

    /// Nil unless every gate's weights are a constant float32 [cells, depth] matrix of at most `maximumElements`
    /// values together.
    init?(gateWeights: [Tensor], cells: Int, depth: Int) {
        guard !gateWeights.isEmpty, gateWeights.count * cells * depth <= Self.maximumElements,
              gateWeights.allSatisfy({ $0.type == .float32 && $0.storage != .arena && $0.shape == [cells, depth] && $0.data != nil })
        else { return nil }
        rows = gateWeights.count * cells
        sources = gateWeights.map { UnsafeRawPointer($0.data!) }
        values = .allocate(capacity: max(rows * depth, 1))
        for (g, tensor) in gateWeights.enumerated() {
            (values + g * cells * depth).update(from: tensor.floats, count: cells * depth)
        }
    }

    deinit { values.deallocate() }

    func isMade(from gateWeights: [Tensor]) -> Bool {
        gateWeights.count == sources.count && gateWeights.allSatisfy { $0.type == .float32 }
            && zip(gateWeights, sources).allSatisfy { $0.data.map(UnsafeRawPointer.init) == $1 }
    }
}
