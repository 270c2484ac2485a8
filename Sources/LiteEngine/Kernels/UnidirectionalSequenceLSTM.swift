import Foundation
import LiteFormat

/// UNIDIRECTIONAL_SEQUENCE_LSTM, float32, in TFLite's 24-input form (tensorflow/lite/kernels/lstm_shared.h):
///
///     0 input [B, T, I] (or [T, B, I] with time_major)
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
/// step then does the recurrent product for the whole batch with one sgemm per gate, or with SIMD
/// matrix-vector products when the step is small.
final class UnidirectionalSequenceLSTM: Kernel {
    let options: SequenceLSTMOptions
    var batches = 0, steps = 0, inputSize = 0, cells = 0, outputSize = 0
    var activation: (Float) -> Float = { tanhf($0) }
    /// Set for int8 inputs: TFLite's integer LSTM (int8 weights and output state, int16 cell state).
    var integer: IntegerLSTM?
    /// Set for float inputs with int8 weights: TFLite's hybrid LSTM.
    var hybrid: HybridLSTM?

    required init(_ node: NodeContext) throws {
        options = try SequenceLSTMOptions(node.options)
        try super.init(node)
        guard node.inputs.count == 24, node.outputs.count == 1 else {
            throw KernelError.unsupported("\(node.inputs.count) inputs: only the 24-input form is supported")
        }
        switch options.activation {
        case .tanh: activation = { tanhf($0) }
        case .relu: activation = { max($0, 0) }
        case .relu6: activation = { min(max($0, 0), 6) }
        case .reluN1To1: activation = { min(max($0, -1), 1) }
        case .none: activation = { $0 }
        case .signBit: throw KernelError.unsupported("activation SIGN_BIT")
        }
    }

    var hasInputGate: Bool { optionalInput(1) != nil }
    var hasPeepholes: Bool { optionalInput(10) != nil }
    var hasProjection: Bool { optionalInput(16) != nil }
    var hasLayerNorm: Bool { optionalInput(21) != nil }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        try expectType(input, .float32, .int8)
        try expectRank(input, 3)
        (steps, batches) = options.timeMajor ? (input.dim(0), input.dim(1)) : (input.dim(1), input.dim(0))
        inputSize = input.dim(2)
        let forgetWeights = try self.input(2)
        guard forgetWeights.rank == 2, forgetWeights.dim(1) == inputSize else {
            throw KernelError.invalid("input-to-forget weights \(forgetWeights.shape) do not fit input size \(inputSize)")
        }
        cells = forgetWeights.dim(0)
        let recurrent = try self.input(6)
        guard recurrent.rank == 2, recurrent.dim(0) == cells else { throw KernelError.invalid("recurrent weights \(recurrent.shape) do not fit \(cells) cells") }
        outputSize = recurrent.dim(1)
        if input.type == .int8 { return try prepareInteger(input: input, output: output) }
        integer = nil
        hybrid = forgetWeights.type == .int8 ? try HybridLSTM(inputs: node.inputs, options: options, activation: activation,
                                                             inputSize: inputSize, cells: cells, outputSize: outputSize) : nil
        func check(_ index: Int, _ shape: [Int], required: Bool) throws {
            guard let t = optionalInput(index) else {
                if required { throw KernelError.invalid("input \(index) is required") }
                return
            }
            if hybrid != nil, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16].contains(index) { return }
            try expectType(t, .float32)
            guard t.shape == shape else { throw KernelError.invalid("input \(index) has shape \(t.shape), expected \(shape)") }
        }
        let gates = hasInputGate ? [1, 2, 3, 4] : [2, 3, 4]
        for g in gates { try check(g, [cells, inputSize], required: true) }
        for g in gates { try check(g + 4, [cells, outputSize], required: true) }
        for g in gates { try check(g + 11, [cells], required: true) }
        if hasPeepholes {
            if hasInputGate { try check(9, [cells], required: true) }
            try check(10, [cells], required: true)
            try check(11, [cells], required: true)
        }
        if hasProjection {
            try check(16, [outputSize, cells], required: true)
            try check(17, [outputSize], required: false)
        } else {
            guard outputSize == cells else { throw KernelError.invalid("without projection the output size \(outputSize) must equal \(cells) cells") }
        }
        if hasLayerNorm {
            for g in gates { try check(g + 19, [cells], required: true) }
        }
        let outputState = try self.input(18), cellState = try self.input(19)
        guard outputState.isVariable, cellState.isVariable else { throw KernelError.invalid("the output and cell states must be variable tensors") }
        try expectType(outputState, .float32)
        try expectType(cellState, .float32)
        guard outputState.elementCount == batches * outputSize, cellState.elementCount == batches * cells else {
            throw KernelError.invalid("states \(outputState.shape) and \(cellState.shape) do not fit batch \(batches)")
        }
        output.type = .float32
        output.shape = options.timeMajor ? [steps, batches, outputSize] : [batches, steps, outputSize]
    }

    private func prepareInteger(input: Tensor, output: Tensor) throws {
        if options.activation != .tanh { throw KernelError.unsupported("integer LSTM with activation \(options.activation)") }
        if !hasProjection, outputSize != cells { throw KernelError.invalid("without projection the output size \(outputSize) must equal \(cells) cells") }
        integer = try IntegerLSTM(inputs: node.inputs, output: output, intermediates: node.intermediates, options: options,
                                  inputSize: inputSize, cells: cells, outputSize: outputSize)
        let outputState = try self.input(18), cellState = try self.input(19)
        guard outputState.isVariable, cellState.isVariable else { throw KernelError.invalid("the output and cell states must be variable tensors") }
        guard outputState.elementCount == batches * outputSize, cellState.elementCount == batches * cells else {
            throw KernelError.invalid("states \(outputState.shape) and \(cellState.shape) do not fit batch \(batches)")
        }
        output.type = .int8
        output.shape = options.timeMajor ? [steps, batches, outputSize] : [batches, steps, outputSize]
    }

    private func runInteger(_ lstm: IntegerLSTM, _ context: RunContext) {
        let (B, T, I, O) = (batches, steps, inputSize, outputSize)
        let x = node.inputs[0]!.pointer(Int8.self), out = node.outputs[0].pointer(Int8.self)
        let int8Input = { (i: Int) in self.optionalInput(i).map { UnsafePointer($0.pointer(Int8.self)) } }
        let int16Input = { (i: Int) in self.optionalInput(i).map { UnsafePointer($0.pointer(Int16.self)) } }
        let weights = (0..<4).map { int8Input(1 + $0) }, recurrent = (0..<4).map { int8Input(5 + $0) }
        let peepholes = [int16Input(9), int16Input(10), nil, int16Input(11)]
        let layerNorm = (0..<4).map { int16Input(20 + $0) }
        let biases = (0..<4).map { g in self.optionalInput(12 + g).map { UnsafePointer($0.pointer(Int32.self)) } }
        let outputState = node.inputs[18]!.pointer(Int8.self), cellState = node.inputs[19]!.pointer(Int16.self)
        for t in 0..<T {
            for b in 0..<B {
                let row = options.timeMajor ? t * B + b : b * T + t
                lstm.step(input: x + row * I, weights: weights, recurrentWeights: recurrent, peepholes: peepholes, layerNorm: layerNorm,
                          biases: biases, projection: int8Input(16), outputState: outputState + b * O, cellState: cellState + b * lstm.cells,
                          output: out + row * O, scratch: context.scratch)
            }
        }
    }

    private func runHybrid(_ lstm: HybridLSTM, _ context: RunContext) {
        let (B, T, I, O, C) = (batches, steps, inputSize, outputSize, cells)
        let x = node.inputs[0]!.floats, out = node.outputs[0].floats
        let floatInput = { (i: Int) in self.optionalInput(i).map { UnsafePointer($0.floats) } }
        let biases = (0..<4).map { floatInput(12 + $0) }, layerNorm = (0..<4).map { floatInput(20 + $0) }
        let outputState = node.inputs[18]!.floats, cellState = node.inputs[19]!.floats
        for t in 0..<T {
            for b in 0..<B {
                let row = options.timeMajor ? t * B + b : b * T + t
                lstm.step(input: x + row * I, biases: biases, layerNorm: layerNorm, projectionBias: floatInput(17),
                          outputState: outputState + b * O, cellState: cellState + b * C, output: out + row * O, scratch: context.scratch)
            }
        }
    }

    override var scratchBytes: Int {
        if let integer { return integer.scratchBytes }
        if let hybrid { return hybrid.scratchBytes }
        // Input contributions of 4 gates for all steps, recurrent gates of one step, and the pre-projection output.
        return saturatingProduct(4, max(steps * batches, 1), max(cells, 1), 4) + saturatingProduct(5, max(batches, 1), max(cells, 1), 4)
    }

    override func run(_ context: RunContext) throws {
        if let integer { return runInteger(integer, context) }
        if let hybrid { return runHybrid(hybrid, context) }
        let input = node.inputs[0]!, output = node.outputs[0]
        let (B, T, I, C, O) = (batches, steps, inputSize, cells, outputSize)
        guard B > 0, T > 0 else { return }
        let scratch = context.scratch.assumingMemoryBound(to: Float.self)
        let inputGates = (0..<4).map { scratch + $0 * T * B * C }
        let stepGates = (0..<4).map { scratch + 4 * T * B * C + $0 * B * C }
        let hidden = scratch + 4 * T * B * C + 4 * B * C
        let gates = hasInputGate ? [0, 1, 2, 3] : [1, 2, 3]
        let weights = { (g: Int) -> UnsafePointer<Float> in UnsafePointer(self.node.inputs[1 + g]!.floats) }
        let recurrentWeights = { (g: Int) -> UnsafePointer<Float> in UnsafePointer(self.node.inputs[5 + g]!.floats) }

        // The input contributions of every step, in (time, batch) row order.
        let x = UnsafePointer(input.floats)
        for g in gates {
            if options.timeMajor || B == 1 {
                BLAS.sgemm(transposeB: true, m: T * B, n: C, k: I, a: x, lda: I, b: weights(g), ldb: I, c: inputGates[g], ldc: C, threads: context.threads)
            } else {
                for b in 0..<B {
                    // Batch-major: row t of batch b becomes row t*B+b.
                    BLAS.sgemm(transposeB: true, m: T, n: C, k: I, a: x + b * T * I, lda: I, b: weights(g), ldb: I,
                               c: inputGates[g] + b * C, ldc: B * C, threads: context.threads)
                }
            }
        }

        let outputState = node.inputs[18]!.floats, cellState = node.inputs[19]!.floats
        let bias = (0..<4).map { g in optionalInput(12 + g).map { UnsafePointer($0.floats) } }
        let peephole = (0..<3).map { p in optionalInput(9 + p).map { UnsafePointer($0.floats) } }
        let norm = (0..<4).map { g in optionalInput(20 + g).map { UnsafePointer($0.floats) } }
        let projection = optionalInput(16).map { UnsafePointer($0.floats) }
        let projectionBias = optionalInput(17).map { UnsafePointer($0.floats) }
        let cellClip = options.cellClip, projClip = options.projClip
        let activation = self.activation
        let out = output.floats
        // Below this many multiply-adds per gate and step a BLAS call costs more than the arithmetic (20-cell
        // MNIST LSTM: 0.056 -> 0.049 ms); above it OpenBLAS wins (128 cells: 137 vs 168 ms for the BiLSTM).
        let smallRecurrence = B * C * O <= 4096

        for t in 0..<T {
            for g in gates {
                // gate = W_x·x_t + W_h·h_prev for the whole batch.
                stepGates[g].update(from: inputGates[g] + t * B * C, count: B * C)
                if smallRecurrence {
                    for b in 0..<B {
                        matrixVectorAccumulate(recurrentWeights(g), rows: C, columns: O, outputState + b * O, into: stepGates[g] + b * C)
                    }
                } else {
                    BLAS.sgemm(transposeB: true, m: B, n: C, k: O, a: outputState, lda: O, b: recurrentWeights(g), ldb: O,
                               beta: 1, c: stepGates[g], ldc: C, threads: context.threads)
                }
            }
            for b in 0..<B {
                let cell = cellState + b * C
                let row = { (g: Int) in stepGates[g] + b * C }
                if hasPeepholes {
                    if hasInputGate, let p = peephole[0] { for c in 0..<C { row(0)[c] += p[c] * cell[c] } }
                    if let p = peephole[1] { for c in 0..<C { row(1)[c] += p[c] * cell[c] } }
                }
                for g in gates where g != 3 {
                    Self.finishGate(row(g), C, norm: norm[g], bias: bias[g])
                }
                let i = row(0), f = row(1), gCell = row(2)
                for c in 0..<C {
                    f[c] = sigmoid(f[c])
                    gCell[c] = activation(gCell[c])
                    let inputGate = hasInputGate ? sigmoid(i[c]) : 1 - f[c]
                    var value = f[c] * cell[c] + inputGate * gCell[c]
                    if cellClip > 0 { value = min(max(value, -cellClip), cellClip) }
                    cell[c] = value
                }
                let o = row(3)
                if hasPeepholes, let p = peephole[2] { for c in 0..<C { o[c] += p[c] * cell[c] } }
                Self.finishGate(o, C, norm: norm[3], bias: bias[3])
                let h = hasProjection ? hidden + b * C : outputState + b * O
                for c in 0..<C { h[c] = sigmoid(o[c]) * activation(cell[c]) }
            }
            if let projection {
                if smallRecurrence {
                    outputState.update(repeating: 0, count: B * O)
                    for b in 0..<B { matrixVectorAccumulate(projection, rows: O, columns: C, hidden + b * C, into: outputState + b * O) }
                } else {
                    BLAS.sgemm(transposeB: true, m: B, n: O, k: C, a: hidden, lda: C, b: projection, ldb: C, c: outputState, ldc: O, threads: context.threads)
                }
                for b in 0..<B {
                    let h = outputState + b * O
                    if let projectionBias { for k in 0..<O { h[k] += projectionBias[k] } }
                    if projClip > 0 { for k in 0..<O { h[k] = min(max(h[k], -projClip), projClip) } }
                }
            }
            for b in 0..<B {
                let destination = options.timeMajor ? out + (t * B + b) * O : out + (b * T + t) * O
                destination.update(from: outputState + b * O, count: O)
            }
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

@inline(__always)
func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
