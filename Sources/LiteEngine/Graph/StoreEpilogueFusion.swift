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
    /// the convolution runs them on each group of rows it has just stored, in the same threads, and their outputs share
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
                      readyBefore(convolution, step.tensorsRead(besides: operand), stored: storedBy, uses),
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

    /// Whether every one of `tensors` is written before node `convolution` runs (or is a constant or a graph input),
    /// and none of them is that convolution's output.
    private func readyBefore(_ convolution: Int, _ tensors: [Tensor], stored: [Int: Int], _ uses: TensorUses) -> Bool {
        tensors.allSatisfy { tensor in
            stored[tensor.index] != convolution && (uses.writer[tensor.index].map { $0 < convolution } ?? true)
        }
    }
}
