import LiteFormat

extension Interpreter {
    /// The fusion pass of a WHILE body: each `TensorListSetItem` the converter lowered to a concatenation of two slices
    /// and an item (``TensorListSetItem/candidates(_:_:)``) becomes one ``TensorListSetItem`` node, and its two slices
    /// ``FusedSlice``s that never run, so that the body's shapes no longer follow its loop counter.
    static func fuseTensorListSetItems(_ kernels: inout [Kernel], codes: [OperatorCode], graph: SubGraphDescription) throws {
        for (before, concatenation, after) in TensorListSetItem.candidates(kernels, graph) {
            let fused = TensorListSetItem.node(concatenation: kernels[concatenation].node, before: kernels[before].node, after: kernels[after].node)
            kernels[concatenation] = try nodeStep(concatenation, codes[concatenation]) { try TensorListSetItem(fused) }
            kernels[before] = try FusedSlice(kernels[before].node)
            kernels[after] = try FusedSlice(kernels[after].node)
        }
    }
}
