import Foundation
import LiteFormat

/// UNIDIRECTIONAL_SEQUENCE_LSTM in TFLite's 24-input form (the layout and float math are `FloatLSTM`'s):
///
///     0 input [B, T, I] (or [T, B, I] with time_major), then the cell tensors 1-23 of `FloatLSTM`.
///
/// Three kernels by type, as TFLite chooses them: float32 (`FloatLSTM`); float input with int8 weights, the
/// hybrid LSTM (`HybridLSTM`); int8 input, the integer LSTM with 16-bit cell state and the op's five
/// intermediates (`IntegerLSTM`, bit-exact).
final class UnidirectionalSequenceLSTM: Kernel {
    let options: SequenceLSTMOptions
    var batches = 0, steps = 0, inputSize = 0, cells = 0, outputSize = 0

    /// The kernel `run` uses, chosen by `prepare` from the input's and weights' types.
    enum Plan {
        /// float32 input and weights.
        case float(FloatLSTM)
        /// Float input with int8 weights: TFLite's hybrid LSTM. `checked` is the float kernel built over the same
        /// tensors, which checks their shapes (and keeps its stacked weights for a later prepare).
        case hybrid(HybridLSTM, checked: FloatLSTM)
        /// int8 input: TFLite's integer LSTM (int8 weights and output state, int16 cell state).
        case integer(IntegerLSTM)
    }

    /// The path `run` takes, chosen by `prepare` (nil before it).
    private(set) var plan: Plan?

    /// The float kernel of a float or hybrid plan (tests look at its stacked weights).
    var float: FloatLSTM? {
        switch plan {
        case .float(let lstm)?, .hybrid(_, let lstm)?: return lstm
        case .integer?, nil: return nil
        }
    }

    required init(_ node: NodeContext) throws {
        options = try SequenceLSTMOptions(node.options)
        try super.init(node)
        guard node.inputs.count == 24, node.outputs.count == 1 else {
            throw KernelError.unsupported("\(node.inputs.count) inputs: only the 24-input form is supported")
        }
        _ = try FloatLSTM.activation(options.activation)
    }

    var hasProjection: Bool { optionalInput(16) != nil }

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
        let previous = float
        plan = nil
        switch (input.type, forgetWeights.type) {
        case (.int8, _):
            return try prepareInteger(input: input, output: output)
        case (_, .int8):
            let checked = try FloatLSTM(tensors: node.inputs, activation: options.activation, cellClip: options.cellClip, projClip: options.projClip,
                                        inputSize: inputSize, batches: batches, weightsMayBeInt8: true, previous: previous)
            let hybrid = try HybridLSTM(inputs: node.inputs, options: options, activation: try FloatLSTM.activation(options.activation),
                                        inputSize: inputSize, cells: cells, outputSize: outputSize)
            plan = .hybrid(hybrid, checked: checked)
        default:
            plan = .float(try FloatLSTM(tensors: node.inputs, activation: options.activation, cellClip: options.cellClip, projClip: options.projClip,
                                        inputSize: inputSize, batches: batches, weightsMayBeInt8: false, previous: previous))
        }
        output.type = .float32
        output.shape = options.timeMajor ? [steps, batches, outputSize] : [batches, steps, outputSize]
    }

    private func prepareInteger(input: Tensor, output: Tensor) throws {
        if options.activation != .tanh { throw KernelError.unsupported("integer LSTM with activation \(options.activation)") }
        if !hasProjection, outputSize != cells { throw KernelError.invalid("without projection the output size \(outputSize) must equal \(cells) cells") }
        let integer = try IntegerLSTM(inputs: node.inputs, output: output, intermediates: node.intermediates, options: options,
                                      inputSize: inputSize, cells: cells, outputSize: outputSize)
        let outputState = try self.input(18), cellState = try self.input(19)
        guard outputState.isVariable, cellState.isVariable else { throw KernelError.invalid("the output and cell states must be variable tensors") }
        guard outputState.elementCount == batches * outputSize, cellState.elementCount == batches * cells else {
            throw KernelError.invalid("states \(outputState.shape) and \(cellState.shape) do not fit batch \(batches)")
        }
        plan = .integer(integer)
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
        let projection = int8Input(16)
        for t in 0..<T {
            for b in 0..<B {
                let row = options.timeMajor ? t * B + b : b * T + t
                lstm.step(input: x + row * I, weights: weights, recurrentWeights: recurrent, peepholes: peepholes, layerNorm: layerNorm,
                          biases: biases, projection: projection, outputState: outputState + b * O, cellState: cellState + b * lstm.cells,
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
        let projectionBias = floatInput(17)
        for t in 0..<T {
            for b in 0..<B {
                let row = options.timeMajor ? t * B + b : b * T + t
                lstm.step(input: x + row * I, biases: biases, layerNorm: layerNorm, projectionBias: projectionBias,
                          outputState: outputState + b * O, cellState: cellState + b * C, output: out + row * O, scratch: context.scratch)
            }
        }
    }

    override var scratchBytes: Int {
        switch plan {
        case .integer(let lstm)?: return lstm.scratchBytes
        case .hybrid(let lstm, _)?: return lstm.scratchBytes
        case .float(let lstm)?: return lstm.scratchBytes(steps: steps, batches: batches)
        case nil: return 0
        }
    }

    override func run(_ context: RunContext) throws {
        switch plan {
        case .integer(let lstm)?: runInteger(lstm, context)
        case .hybrid(let lstm, _)?: runHybrid(lstm, context)
        case .float(let lstm)?: runFloat(lstm, context)
        case nil: throw KernelError.invalid("UNIDIRECTIONAL_SEQUENCE_LSTM ran before it was prepared")
        }
    }

    private func runFloat(_ float: FloatLSTM, _ context: RunContext) {
        float.run(UnsafePointer(node.inputs[0]!.floats), steps: steps, batches: batches, timeMajor: options.timeMajor, reverse: false,
                  output: node.outputs[0].floats, outputStride: outputSize, outputOffset: 0, scratch: context.scratch, threads: context.threads)
    }
}

@inline(__always)
func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
