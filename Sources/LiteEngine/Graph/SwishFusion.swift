/// A node that may be a float sigmoid (float LOGISTIC), which a swish's MUL can compute itself.
protocol FoldableSigmoid: Kernel {
    /// Whether this node is a float LOGISTIC.
    var isFloatSigmoid: Bool { get }
}

/// A node that can multiply one input by its own sigmoid in place of reading a ``FoldableSigmoid``'s output (float MUL).
protocol SigmoidAbsorbing: Kernel {
    /// Makes this node compute its result with its input `operand`'s sigmoid in place of its other input (which
    /// it then never reads), and says whether it did: a float MUL of x and LOGISTIC(x) computes `x · sigmoid(x)`.
    func takeSigmoid(of operand: Int) -> Bool
}

extension NodeFusion {
    /// Folds a float LOGISTIC whose output only a ``SigmoidAbsorbing`` node reads, beside the LOGISTIC's own input
    /// (swish, as EfficientNet's converter writes it), into that node: it computes `x · sigmoid(x)` itself, the same
    /// arithmetic in one pass, and the LOGISTIC does not run.
    mutating func foldSwishes(_ kernels: [Kernel], _ uses: TensorUses) {
        for kernel in kernels where kernel.node.inputs.count == 2 {
            guard let absorbing = kernel as? SigmoidAbsorbing else { continue }
            for (operand, other) in [(0, 1), (1, 0)] {
                guard let sigmoid = kernel.node.inputs[operand], let x = kernel.node.inputs[other], sigmoid.storage == .arena,
                      uses.readers[sigmoid.index] == 1, let producer = uses.writer[sigmoid.index],
                      let logistic = kernels[producer] as? FoldableSigmoid, logistic.isFloatSigmoid,
                      logistic.node.inputs.first??.index == x.index, absorbing.takeSigmoid(of: other)
                else { continue }
                fold(producer)
                break
            }
        }
    }
}
