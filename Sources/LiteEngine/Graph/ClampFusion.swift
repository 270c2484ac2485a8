/// A node that may be only a float clamp (float RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1).
protocol FoldableClamp: Kernel {
    /// The range this node clamps its float input to, or nil when it is not a float clamp (a quantized RELU).
    var floatClamp: (Float, Float)? { get }
}

/// A node that can clamp its own float output further (convolutions, FULLY_CONNECTED, and the arithmetic ops with a
/// fused activation: ADD, SUB, MUL, DIV), so that a ``FoldableClamp`` after it need not run.
protocol ClampAbsorbing: Kernel {
    /// Narrows this node's fused activation so that its float output is also clamped to `range`, and says whether it
    /// did. Kernels whose every float path clamps to their activation take it, as XNNPACK folds a clamp into the node
    /// before; a node that cannot (a quantized path, another activation) returns false.
    func takeClamp(_ range: (Float, Float)) -> Bool
}

extension NodeFusion {
    /// Folds each float clamp node into the node that writes its input, when its input is read by nothing else and the
    /// writer takes the clamp: the writer's output is then already the clamp's, so the clamp's output shares its bytes
    /// and the clamp node does not run. A convolution followed by a RELU node (the face detector's blocks) then writes
    /// its output once.
    mutating func foldClamps(_ kernels: [Kernel], _ uses: TensorUses) {
        for (node, kernel) in kernels.enumerated() {
            guard let clamp = kernel as? FoldableClamp, let range = clamp.floatClamp, kernel.node.inputs.count == 1,
                  let input = kernel.node.inputs[0], let output = kernel.node.outputs.first,
                  input.storage == .arena, output.storage == .arena, uses.readers[input.index] == 1, aliases[input.index] == nil,
                  let producer = uses.writer[input.index], kernels[producer].node.outputs.count == 1,
                  let absorbing = kernels[producer] as? ClampAbsorbing, absorbing.takeClamp(range)
            else { continue }
            fold(node)
            alias(output.index, to: input.index)
        }
    }
}
