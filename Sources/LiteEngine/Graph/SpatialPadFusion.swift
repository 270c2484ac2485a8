import LiteFormat

/// A node that may only pad a 4-D float tensor's height and width with zeros (float PAD): the explicit padding that
/// models converted from PyTorch, and MediaPipe's BlazePose and full-range face detectors, put before their
/// convolutions.
protocol FoldableSpatialZeroPad: Kernel {
    /// Its padding when it is such a node (a float PAD of constant paddings, zero on the batch and channel axes), else nil.
    var floatSpatialZeroPadding: SpatialZeroPadding? { get }
}

/// A convolution that can read the unpadded input of a ``FoldableSpatialZeroPad`` as its input 0, with the padding
/// added to its own (taps outside the input read zeros in every convolution kernel).
protocol SpatialPadAbsorbing: Kernel {
    /// Zeros around the input before the op's own padding.
    var zeroPadding: SpatialZeroPadding { get set }
}

extension SpatialPadAbsorbing {
    /// Whether this node's types allow it: a float filter on a float input (a hybrid path quantizes the input by its
    /// range, which padding zeros change).
    var absorbsSpatialZeroPadding: Bool { node.inputs[0]?.type == .float32 && node.inputs[1]?.type == .float32 }

    /// A kernel of the same op for this node, reading `source` as its input 0, padded with `padding`.
    func reading(_ source: Tensor, paddedWith padding: SpatialZeroPadding) throws -> Kernel {
        let kernel = try Self(node.replacingInput(0, with: source))
        kernel.zeroPadding = padding
        return kernel
    }
}

extension NodeFusion {
    /// Folds a float PAD of zeros on height and width whose output only convolutions read, each as its input 0 and
    /// none as a graph output, into those convolutions, as XNNPACK does with a static PAD before a convolution: each
    /// is replaced by a kernel that reads the PAD's input with the padding added to its own, so the padded copy is
    /// never written (a pass over each layer's input less, and one that hardly gains from a second thread).
    mutating func foldSpatialPads(_ kernels: inout [Kernel], _ graph: SubGraphDescription) throws {
        let uses = TensorUses(kernels, graph)
        var readers = [Int: [Int]]()
        for (node, kernel) in kernels.enumerated() {
            for input in kernel.node.inputs { if let input { readers[input.index, default: []].append(node) } }
        }
        for (node, kernel) in kernels.enumerated() {
            guard let pad = kernel as? FoldableSpatialZeroPad, let padding = pad.floatSpatialZeroPadding,
                  let source = pad.node.inputs[0], let padded = pad.node.outputs.first, padded.storage == .arena,
                  let convolutions = readers[padded.index], !convolutions.isEmpty,
                  // Every read is one of these nodes' (not a graph output, not twice by one node).
                  Set(convolutions).count == convolutions.count, convolutions.count == uses.readers[padded.index],
                  convolutions.allSatisfy({ reader in
                      guard let absorbing = kernels[reader] as? SpatialPadAbsorbing, absorbing.absorbsSpatialZeroPadding else { return false }
                      return absorbing.node.inputs.firstIndex { $0?.index == padded.index } == 0
                  })
            else { continue }
            for reader in convolutions {
                kernels[reader] = try (kernels[reader] as! SpatialPadAbsorbing).reading(source, paddedWith: padding)
            }
            fold(node)
        }
    }
}
