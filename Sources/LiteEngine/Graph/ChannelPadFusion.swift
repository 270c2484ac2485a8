/// A node that may only pad a float tensor's last axis with zeros after its values (float PAD): the channel padding
/// on the shortcut of BlazeFace-style residual blocks.
protocol FoldableChannelZeroPad: Kernel {
    /// Whether this node is such a padding (a float PAD of constant paddings, zero on every axis but the last).
    var isFloatChannelZeroPad: Bool { get }
}

/// A node that can read the unpadded input of a ``FoldableChannelZeroPad`` in place of its padded output (float ADD).
protocol ChannelPadAbsorbing: Kernel {
    /// Makes this node read the input of `pad` (a ``FoldableChannelZeroPad`` node writing its input `operand`) in place
    /// of `pad`'s output, as if padded with zeros, and says whether it did; `pad` then does not run, unless this node
    /// runs it itself for shapes it does not take.
    func takeChannelPad(_ pad: Kernel, of operand: Int) -> Bool
}

extension NodeFusion {
    /// Folds a float PAD of zeros after the last axis whose output only a ``ChannelPadAbsorbing`` node reads into
    /// that node: it reads the PAD's input, which then lives until it runs, and the padded copy is never written (the
    /// face detector's residual blocks: one pass over each block's output less).
    mutating func foldChannelPads(_ kernels: [Kernel], _ uses: TensorUses) {
        for (node, kernel) in kernels.enumerated() where kernel.node.inputs.count == 2 {
            guard let absorbing = kernel as? ChannelPadAbsorbing else { continue }
            for operand in 0..<2 {
                guard let padded = kernel.node.inputs[operand], padded.storage == .arena, uses.readers[padded.index] == 1,
                      let producer = uses.writer[padded.index], !folded[producer],
                      let pad = kernels[producer] as? FoldableChannelZeroPad, pad.isFloatChannelZeroPad,
                      let source = pad.node.inputs[0], absorbing.takeChannelPad(pad, of: operand)
                else { continue }
                fold(producer)
                keepAlive(source.index, until: node)
                break
            }
        }
    }
}
