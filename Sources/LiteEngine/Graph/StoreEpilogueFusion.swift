import CLiteKernels

/// A float node that can run on a convolution's output rows as the convolution stores them: a residual ADD (also one
/// with a folded channel PAD) or a PRELU (MediaPipe's blocks: CONV_2D, then ADD of the block's input, then PRELU;
/// BlazeFace's: CONV_2D, then ADD of the block's channel-padded input, with a RELU folded into the ADD).
protocol FoldableIntoStore: Kernel {
    /// Whether this node is float and element by element on its input `operand`, so that it can run on any range of
    /// that operand's rows: a float ADD (not SUB), a float PRELU of `operand` 0.
    func canRunOnRows(of operand: Int) -> Bool
    /// The tensors this node reads besides `operand`: they must hold their values when the convolution runs.
    func tensorsRead(besides operand: Int) -> [Tensor]
    /// How to run this node on rows of `operand` (the convolution's output, `channels` values a row) in place, or nil
    /// when its current shapes or plan have no such form; it then runs whole, after the convolution.
    func storeStep(operand: Int, channels: Int) -> StoreStep?
}

/// One folded node's arithmetic on a range of a convolution's output rows, in place, with the node's own kernel and
/// operand order (a sum of two NaNs keeps the first one's payload).
enum StoreStep {
    /// `clamp(row + other row, low, high)`, or `other row + row` (a float ADD of two tensors of the output's shape).
    case add(other: UnsafePointer<Float>, otherFirst: Bool, kernel: lite_f32_vadd_minmax_fn, low: Float, high: Float)
    /// `clamp(row + pad(source row), low, high)`, or `pad(source row) + row`: an ADD with a folded channel PAD, whose
    /// source rows have `sourceChannels` values.
    case addChannelPadded(source: UnsafePointer<Float>, sourceChannels: Int, sourceFirst: Bool, kernel: lite_f32_vadd_channel_padded_fn,
                          low: Float, high: Float)
    /// `x >= 0 ? x : x · slope[channel]` (a float PRELU with one slope per channel).
    case prelu(slopes: UnsafePointer<Float>, kernel: lite_f32_prelu_channels_fn)

    /// The step as the AVX-512 tiles apply it to each value in registers before storing it (row r of the convolution's
    /// output, `channels` values a row, meets row r of the other operand): the same operations on the same operands in
    /// the same order.
    func registerStep(channels: Int) -> lite_f32_store_step {
        switch self {
        case .add(let other, let otherFirst, _, let low, let high):
            lite_f32_store_step(kind: LITE_F32_STORE_ADD, other_first: otherFirst ? 1 : 0, values: other, stride: channels, summed: 0, low: low, high: high)
        case .addChannelPadded(let source, let sourceChannels, let sourceFirst, _, let low, let high):
            lite_f32_store_step(kind: LITE_F32_STORE_ADD_CHANNEL_PADDED, other_first: sourceFirst ? 1 : 0, values: source, stride: sourceChannels,
                                summed: sourceChannels, low: low, high: high)
        case .prelu(let slopes, _):
            lite_f32_store_step(kind: LITE_F32_STORE_PRELU, other_first: 0, values: slopes, stride: 0, summed: 0, low: 0, high: 0)
        }
    }

    /// `steps` as the AVX-512 tiles apply them in registers, or nil when they are not of a form the tiles compile: an
    /// ADD (plain or channel-padded), a PRELU, or an ADD then a PRELU.
    static func inRegisters(_ steps: [StoreStep], channels: Int) -> lite_f32_store_epilogue? {
        func isAdd(_ step: StoreStep) -> Bool { if case .prelu = step { false } else { true } }
        switch steps.count {
        case 1: break
        case 2: guard isAdd(steps[0]), !isAdd(steps[1]) else { return nil }
        default: return nil
        }
        var described = lite_f32_store_epilogue()
        described.count = steps.count
        described.steps.0 = steps[0].registerStep(channels: channels)
        if steps.count == 2 { described.steps.1 = steps[1].registerStep(channels: channels) }
        return described
    }

    /// Runs on rows `rows` of `output`, `channels` values a row.
    func apply(_ output: UnsafeMutablePointer<Float>, rows: Range<Int>, channels: Int) {
        let out = output + rows.lowerBound * channels
        switch self {
        case .add(let other, let otherFirst, let kernel, let low, let high):
            let second = other + rows.lowerBound * channels
            if otherFirst { kernel(second, out, out, rows.count * channels, low, high) } else { kernel(out, second, out, rows.count * channels, low, high) }
        case .addChannelPadded(let source, let sourceChannels, let sourceFirst, let kernel, let low, let high):
            let padded = source + rows.lowerBound * sourceChannels
            if sourceFirst {
                kernel(padded, sourceChannels, out, channels, out, out, rows.count, sourceChannels, channels, low, high)
            } else {
                kernel(out, channels, padded, sourceChannels, out, out, rows.count, sourceChannels, channels, low, high)
            }
        case .prelu(let slopes, let kernel):
            kernel(out, slopes, out, rows.count, channels)
        }
    }
}

/// A node whose float output can go through ``FoldableIntoStore`` nodes as it is stored (float CONV_2D).
protocol StoreEpilogueAbsorbing: Kernel {
    /// Appends `step` (reading this node's output, or the output of the last step taken, as its input `operand`) to
    /// what this node does after computing its output, and says whether it did.
    func takeStoreStep(_ step: FoldableIntoStore, operand: Int) -> Bool
}

extension NodeFusion {
    /// Folds float ADD and PRELU nodes into the convolution whose output they read, when they are its only reader:
    /// the convolution runs them on each group of rows it has just stored (in the same threads, or on the caller after
    /// a few-row map whose panels the threads shared), and their outputs share
    /// its output's bytes. The arithmetic is the same, in the same order, so the bits are too; what goes is a pass over
    /// the layer per node and the node's own dispatch (MediaPipe's landmark models run a residual ADD and a PRELU
    /// after most convolutions, on maps of 32x32 pixels and smaller, where those are a large part of each layer).
    ///
    /// What the folded node reads besides the convolution's output must be computed before the convolution runs.
    mutating func foldIntoConvolutionStores(_ kernels: [Kernel], _ uses: TensorUses) {
        // Tensor index -> the convolution whose stored output it is (its output, or a folded step's).
        var storedBy = [Int: Int]()
        for (node, kernel) in kernels.enumerated() {
            if folded[node] {
                // A clamp folded into the convolution before this pass: its output is the convolution's.
                if let output = kernel.node.outputs.first, let shared = aliases[output.index], let convolution = storedBy[shared] {
                    storedBy[output.index] = convolution
                }
                continue
            }
            if kernel is StoreEpilogueAbsorbing, let output = kernel.node.outputs.first { storedBy[output.index] = node }
            guard let step = kernel as? FoldableIntoStore, let output = kernel.node.outputs.first, output.storage == .arena else { continue }
            for (operand, input) in kernel.node.inputs.enumerated() {
                // The folded node's output shares the convolution's bytes: it must be of the convolution's shape (a
                // broadcast to a larger one would write past them).
                guard let input, let convolution = storedBy[input.index], uses.readers[input.index] == 1, step.canRunOnRows(of: operand),
                      output.shape == kernels[convolution].node.outputs[0].shape,
                      readyBefore(convolution, step.tensorsRead(besides: operand), stored: storedBy, uses, kernels),
                      let absorbing = kernels[convolution] as? StoreEpilogueAbsorbing, absorbing.takeStoreStep(step, operand: operand)
                else { continue }
                fold(node)
                let root = kernels[convolution].node.outputs[0].index
                alias(output.index, to: root)
                storedBy[output.index] = convolution
                break
            }
        }
    }

    /// Whether every one of `tensors` is written before node `convolution` runs (or is a constant or a graph input, or
    /// the DEQUANTIZE of a constant, whose values exist before any run: MediaPipe's float16 models dequantize their
    /// PRELU slopes after the convolution the PRELU follows), and none of them is that convolution's output.
    private func readyBefore(_ convolution: Int, _ tensors: [Tensor], stored: [Int: Int], _ uses: TensorUses, _ kernels: [Kernel]) -> Bool {
        tensors.allSatisfy { tensor in
            guard stored[tensor.index] != convolution else { return false }
            guard let writer = uses.writer[tensor.index] else { return true }
            return writer < convolution || (kernels[writer] as? Dequantize)?.computesAConstant == true
        }
    }
}
