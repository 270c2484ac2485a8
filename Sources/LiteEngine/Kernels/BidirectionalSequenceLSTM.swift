import Foundation
import LiteFormat

/// BIDIRECTIONAL_SEQUENCE_LSTM, float32 (tensorflow/lite/kernels/bidirectional_sequence_lstm.cc): a forward and a
/// backward `FloatLSTM` over the same sequence, 48 inputs:
///
///     0 input [T, B, I] (time_major, the default) or [B, T, I]
///     1-17 forward cell (the unidirectional op's 1-17), 18-34 backward cell (same layout)
///     35, 36 forward output and cell state; 37, 38 backward output and cell state (variables)
///     39 aux input (optional), 40-43 forward and 44-47 backward aux weights (optional)
///
/// The backward cell reads the sequence from its last step to its first and writes each step's output at that
/// step's position. With `merge_outputs` one output holds [forward | backward] along the last axis; otherwise
/// there are two outputs. An aux input without aux weights is the backward cell's input (stacked
/// `static_bidirectional_rnn`); aux weights (cross-linked stacks) are not supported.
final class BidirectionalSequenceLSTM: Kernel {
    let options: BidirectionalSequenceLSTMOptions
    var batches = 0, steps = 0, inputSize = 0
    var forward: FloatLSTM?, backward: FloatLSTM?

    required init(_ node: NodeContext) throws {
        options = try BidirectionalSequenceLSTMOptions(node.options)
        try super.init(node)
        guard node.inputs.count == 48 else { throw KernelError.unsupported("\(node.inputs.count) inputs: expects 48") }
        guard node.outputs.count == (options.mergeOutputs ? 1 : 2) else {
            throw KernelError.invalid("\(node.outputs.count) outputs with merge_outputs \(options.mergeOutputs)")
        }
        if (40...47).contains(where: { node.inputs[$0] != nil }) {
            throw KernelError.unsupported("aux input weights (cross-linked bidirectional stacks)")
        }
        _ = try FloatLSTM.activation(options.activation)
    }

    /// The backward cell's input: the aux input when there is one (see above), else the input.
    var backwardInput: Tensor { optionalInput(39) ?? node.inputs[0]! }

    /// One direction's tensors in the unidirectional layout: cell tensors from `base + 1...base + 17`, states.
    private func cellTensors(base: Int, states: (Int, Int)) -> [Tensor?] {
        var tensors = [Tensor?](repeating: nil, count: 24)
        for i in 1...17 { tensors[i] = node.inputs[base + i] }
        tensors[18] = node.inputs[states.0]
        tensors[19] = node.inputs[states.1]
        return tensors
    }

    override func prepare() throws {
        let input = try self.input(0)
        try expectType(input, .float32)
        try expectRank(input, 3)
        let auxInput = backwardInput
        try expectType(auxInput, .float32)
        guard auxInput.rank == 3, auxInput.dim(0) == input.dim(0), auxInput.dim(1) == input.dim(1) else {
            throw KernelError.invalid("aux input \(auxInput.shape) does not fit input \(input.shape)")
        }
        (steps, batches) = options.timeMajor ? (input.dim(0), input.dim(1)) : (input.dim(1), input.dim(0))
        inputSize = input.dim(2)
        let make = { (base: Int, states: (Int, Int), inputSize: Int, previous: FloatLSTM?) in
            try FloatLSTM(tensors: self.cellTensors(base: base, states: states), activation: self.options.activation,
                          cellClip: self.options.cellClip, projClip: self.options.projClip, inputSize: inputSize, batches: self.batches,
                          previous: previous)
        }
        let forward = try make(0, (35, 36), inputSize, self.forward), backward = try make(17, (37, 38), auxInput.dim(2), self.backward)
        (self.forward, self.backward) = (forward, backward)
        let shape = { (size: Int) in self.options.timeMajor ? [self.steps, self.batches, size] : [self.batches, self.steps, size] }
        if options.mergeOutputs {
            node.outputs[0].type = .float32
            node.outputs[0].shape = shape(forward.outputSize + backward.outputSize)
        } else {
            node.outputs[0].type = .float32
            node.outputs[0].shape = shape(forward.outputSize)
            node.outputs[1].type = .float32
            node.outputs[1].shape = shape(backward.outputSize)
        }
    }

    /// The forward cell's scratch, rounded up to the arena's alignment, then the backward cell's: the two
    /// directions are independent, so with two or more threads they run at the same time.
    private var forwardScratchBytes: Int {
        let bytes = forward?.scratchBytes(steps: steps, batches: batches) ?? 0
        return (bytes + ArenaPlanner.alignment - 1) / ArenaPlanner.alignment * ArenaPlanner.alignment
    }

    override var scratchBytes: Int {
        forwardScratchBytes + (backward?.scratchBytes(steps: steps, batches: batches) ?? 0)
    }

    override func run(_ context: RunContext) throws {
        guard let forward, let backward else { return }
        let merged = options.mergeOutputs
        let stride = merged ? forward.outputSize + backward.outputSize : forward.outputSize
        let input = UnsafePointer(node.inputs[0]!.floats), backwardInput = UnsafePointer(self.backwardInput.floats)
        let forwardOutput = node.outputs[0].floats, backwardOutput = node.outputs[merged ? 0 : 1].floats
        let backwardScratch = context.scratch + forwardScratchBytes
        let (steps, batches, timeMajor) = (steps, batches, options.timeMajor)
        let work = saturatingProduct(steps, batches, 4, forward.cells, forward.inputSize + forward.outputSize)
        let threadsEach = max(context.threads / 2, 1)
        parallelFor(2, threads: min(context.threads, 2), workPerItem: work) { directions in
            for direction in directions {
                if direction == 0 {
                    forward.run(input, steps: steps, batches: batches, timeMajor: timeMajor, reverse: false,
                                output: forwardOutput, outputStride: stride, outputOffset: 0, scratch: context.scratch, threads: threadsEach)
                } else {
                    backward.run(backwardInput, steps: steps, batches: batches, timeMajor: timeMajor, reverse: true,
                                 output: backwardOutput, outputStride: merged ? stride : backward.outputSize,
                                 outputOffset: merged ? forward.outputSize : 0, scratch: backwardScratch, threads: threadsEach)
                }
            }
        }
    }
}
