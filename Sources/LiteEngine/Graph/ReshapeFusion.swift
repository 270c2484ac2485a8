import LiteFormat

extension NodeFusion {
    /// Folds each RESHAPE, SQUEEZE and EXPAND_DIMS of activations (``ShapeOnly``) whose input nothing else reads and
    /// which is not a graph input: its output shares the input's bytes, which are already the output's values in the
    /// same order, so the node's copy does not run (TFLite's arena shares a reshape's buffers the same way). A
    /// detector's heads reshape each level's [1, h, w, anchors·classes] map to [1, h·w·anchors, classes] before they
    /// are concatenated; EfficientDet-Lite0 copied 1.7 MB for that in every run.
    ///
    /// Shape arithmetic (int32 and int64 tensors) is left alone: it may run while planning into tensors of its own
    /// (``Interpreter/prepareNodes()``).
    mutating func foldReshapes(_ kernels: [Kernel], _ uses: TensorUses, _ graph: SubGraphDescription) {
        let graphInputs = Set(graph.inputs)
        for (node, kernel) in kernels.enumerated() where kernel is ShapeOnly && !folded[node] {
            guard let input = kernel.node.inputs.first ?? nil, let output = kernel.node.outputs.first,
                  input.storage == .arena, output.storage == .arena, !graphInputs.contains(input.index),
                  input.type != .int32, input.type != .int64, uses.readers[input.index] == 1
            else { continue }
            fold(node)
            alias(output.index, to: input.index)
        }
    }
}
