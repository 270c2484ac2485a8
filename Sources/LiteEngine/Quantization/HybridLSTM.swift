import Foundation
import LiteFormat

/// The hybrid LSTM of TensorFlow Lite (dynamic-range quantization): int8 weights, float activations and state.
/// lstm_eval.cc's `LstmStepHybrid`: each step quantizes the input row and the output state row to int8 (symmetric,
/// or asymmetric with `asymmetric_quantize_inputs`), multiplies them with the int8 weights exactly in int32 and
/// scales each sum back by `input_scale · weight_scale`; peephole weights are dequantized; the cell update,
/// activations and layer norm are the float LSTM's. The projection quantizes the hidden value the same way.
struct HybridLSTM {
    struct Weights {
        let values: UnsafePointer<Int8>
        let scale: Float
        /// Σ_k W[r, k], for asymmetric inputs.
        let rowSums: [Int32]
        let rows: Int, columns: Int

        init(_ tensor: Tensor, rows: Int, columns: Int) throws {
            guard tensor.type == .int8, tensor.storage != .arena else { throw KernelError.unsupported("hybrid LSTM weights must be constant int8") }
            guard tensor.shape == [rows, columns] else { throw KernelError.invalid("tensor \(tensor.index) has shape \(tensor.shape), expected \([rows, columns])") }
            let info = try QuantizedTensorInfo(tensor)
            guard info.scales.count == 1, info.zeroPoint == 0 else { throw KernelError.unsupported("hybrid LSTM weights must be symmetric per-tensor int8") }
            values = UnsafePointer(tensor.pointer(Int8.self))
            scale = info.scale
            self.rows = rows
            self.columns = columns
            var sums = [Int32](repeating: 0, count: rows)
            for r in 0..<rows { for c in 0..<columns { sums[r] += Int32(values[r * columns + c]) } }
            rowSums = sums
        }

        /// `MatrixBatchVectorMultiplyAccumulate` (hybrid): out[r] += float(Σ W[r, k]·q[k] − offset·Σ W[r, k]) · (inputScale · scale).
        @inline(__always)
        func multiplyAccumulate(_ q: UnsafePointer<Int8>, inputScale: Float, offset: Int32, into out: UnsafeMutablePointer<Float>) {
            let combined = inputScale * scale
            for r in 0..<rows {
                let row = values + r * columns
                var dot: Int32 = 0
                for k in 0..<columns { dot &+= Int32(row[k]) * Int32(q[k]) }
                dot &-= rowSums[r] &* offset
                out[r] += Float(dot) * combined
            }
        }
    }

    let cells: Int, inputSize: Int, outputSize: Int
    let asymmetric: Bool
    let cellClip: Float, projectionClip: Float
    let activation: (Float) -> Float
    /// Per gate i, f, c, o (nil for the input gate with CIFG).
    let inputWeights: [Weights?], recurrentWeights: [Weights?]
    /// Dequantized peephole weights for i, f, o (scale · int8, as `VectorScalarMultiply`).
    let peepholes: [[Float]?]
    let projection: Weights?

    init(inputs: [Tensor?], options: SequenceLSTMOptions, activation: @escaping (Float) -> Float,
         inputSize: Int, cells: Int, outputSize: Int) throws {
        self.inputSize = inputSize
        self.cells = cells
        self.outputSize = outputSize
        self.activation = activation
        asymmetric = options.asymmetricQuantizeInputs
        cellClip = options.cellClip
        projectionClip = options.projClip
        inputWeights = try (0..<4).map { g in try inputs[1 + g].map { try Weights($0, rows: cells, columns: inputSize) } }
        recurrentWeights = try (0..<4).map { g in try inputs[5 + g].map { try Weights($0, rows: cells, columns: outputSize) } }
        guard inputWeights[1...].allSatisfy({ $0 != nil }), recurrentWeights[1...].allSatisfy({ $0 != nil }),
              (inputWeights[0] == nil) == (recurrentWeights[0] == nil) else {
            throw KernelError.invalid("hybrid LSTM weights missing")
        }
        peepholes = try [9, 10, 11].map { index in
            try inputs[index].map { tensor in
                guard tensor.type == .int8, tensor.shape == [cells] else { throw KernelError.unsupported("hybrid LSTM peephole \(index) must be int8 [\(cells)]") }
                let scale = try QuantizedTensorInfo(tensor).scale
                let p = tensor.pointer(Int8.self)
                return (0..<cells).map { scale * Float(p[$0]) }
            }
        }
        projection = try inputs[16].map { try Weights($0, rows: outputSize, columns: cells) }
    }

    /// Quantizes `count` floats (`BatchQuantizeFloats` for one row): the scale and the zero point to subtract.
    @inline(__always)
    func quantize(_ values: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>) -> (scale: Float, offset: Int32) {
        if asymmetric { return HybridQuantization.quantizeAsymmetric(values, count: count, into: q) }
        return (HybridQuantization.quantizeSymmetric(values, count: count, into: q), 0)
    }

    var scratchBytes: Int { 5 * cells * 4 + max(inputSize, outputSize, cells) * 2 }

    /// One step for one batch row; `biases` and `layerNorm` are float [cells] per gate.
    func step(input: UnsafePointer<Float>, biases: [UnsafePointer<Float>?], layerNorm: [UnsafePointer<Float>?],
              projectionBias: UnsafePointer<Float>?, outputState: UnsafeMutablePointer<Float>, cellState: UnsafeMutablePointer<Float>,
              output: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        let C = cells
        let floats = scratch.assumingMemoryBound(to: Float.self)
        @inline(__always) func gate(_ g: Int) -> UnsafeMutablePointer<Float> { floats + g * C }
        let hidden = floats + 4 * C
        let quantizedInput = (scratch + 5 * C * 4).assumingMemoryBound(to: Int8.self)
        let quantizedState = quantizedInput + max(inputSize, outputSize, cells)
        let (inputScale, inputOffset) = quantize(input, count: inputSize, into: quantizedInput)
        let (stateScale, stateOffset) = quantize(UnsafePointer(outputState), count: outputSize, into: quantizedState)
        let useCIFG = inputWeights[0] == nil

        func computeGate(_ g: Int, peephole: [Float]?) {
            let out = gate(g)
            if layerNorm[g] == nil, let bias = biases[g] { out.update(from: bias, count: C) } else { out.update(repeating: 0, count: C) }
            inputWeights[g]!.multiplyAccumulate(quantizedInput, inputScale: inputScale, offset: inputOffset, into: out)
            recurrentWeights[g]!.multiplyAccumulate(quantizedState, inputScale: stateScale, offset: stateOffset, into: out)
            if let peephole { for c in 0..<C { out[c] += peephole[c] * cellState[c] } }
            if let norm = layerNorm[g] { FloatLSTM.finishGate(out, C, norm: norm, bias: biases[g]) }
        }
        if !useCIFG { computeGate(0, peephole: peepholes[0]) }
        computeGate(1, peephole: peepholes[1])
        computeGate(2, peephole: nil)
        let i = gate(0), f = gate(1), g = gate(2)
        for c in 0..<C {
            f[c] = sigmoid(f[c])
            g[c] = activation(g[c])
            let inputGate = useCIFG ? 1 - f[c] : sigmoid(i[c])
            var value = f[c] * cellState[c] + g[c] * inputGate
            if cellClip > 0 { value = min(max(value, -cellClip), cellClip) }
            cellState[c] = value
        }
        computeGate(3, peephole: peepholes[2])
        let o = gate(3)
        for c in 0..<C { hidden[c] = sigmoid(o[c]) * activation(cellState[c]) }
        if let projection {
            if let projectionBias { outputState.update(from: projectionBias, count: outputSize) } else { outputState.update(repeating: 0, count: outputSize) }
            if (0..<C).contains(where: { hidden[$0] != 0 }) {
                let (scale, offset) = quantize(UnsafePointer(hidden), count: C, into: quantizedState)
                projection.multiplyAccumulate(quantizedState, inputScale: scale, offset: offset, into: outputState)
            }
            if projectionClip > 0 { for k in 0..<outputSize { outputState[k] = min(max(outputState[k], -projectionClip), projectionClip) } }
        } else {
            outputState.update(from: hidden, count: outputSize)
        }
        output.update(from: outputState, count: outputSize)
    }
}
