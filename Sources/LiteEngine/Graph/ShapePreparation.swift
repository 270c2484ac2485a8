extension Interpreter {
    /// The preparation pass: every kernel's `prepare()` in order checks shapes and types and sets its outputs' shapes,
    /// and shape arithmetic whose inputs are all known runs at once into persistent tensors (``canFold(_:known:)``), so
    /// that a RESHAPE reading it sees a constant and its output shape is known before the arena is planned.
    func prepareNodes() throws {
        var known = plansWithInputValues ? Set(subgraph.inputs) : Set<Int>()
        for (index, kernel) in kernels.enumerated() {
            // Planned from the inputs' values (a WHILE body, every step): a kernel whose shapes cannot follow values
            // and whose inputs kept their shapes would prepare to the same state; it is skipped.
            if plansWithInputValues, !kernel.readsValuesWhilePreparing, !kernel.foldsAtPlanning, inputShapesUnchanged(index) { continue }
            try Self.nodeStep(index, nodeCodes[index]) {
                try kernel.prepare()
                for output in kernel.node.outputs where Tensor.checkedCount(output.shape) == nil {
                    throw KernelError.invalid("output \(output.index) would have shape \(output.shape), beyond the size limit")
                }
                if Self.canFold(kernel, known: known) {
                    for output in kernel.node.outputs {
                        output.makePersistent(byteCount: output.byteCount)
                        known.insert(output.index)
                    }
                    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(kernel.scratchBytes, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
                    defer { scratch.deallocate() }
                    try kernel.run(RunContext(scratch: scratch.baseAddress!, threads: 1))
                }
            }
            if plansWithInputValues {
                preparedShapeVersions[index] = kernels[index].node.inputs.map { $0?.shapeVersion ?? -1 }
            } else {
                releaseConstantPages(of: kernel)
            }
        }
    }

    /// Drops the file pages of `kernel`'s constant inputs from resident memory once it has prepared: most kernels
    /// have copied their weights into a layout of their own (packed GEMM panels, widened or requantized filters), and
    /// the file's copy would otherwise stay resident beside it for the interpreter's lifetime. Weights a kernel reads
    /// while running come back from the page cache at the first run (``ModelBytes/releaseResidentPages(_:)``), so
    /// only they stay resident. A WHILE body planned every step keeps its pages (it prepares too often for this).
    private func releaseConstantPages(of kernel: Kernel) {
        guard model.storage.isFileMapping else { return }
        for case let input? in kernel.node.inputs where input.storage == .constant {
            if let buffer = input.constantBuffer { model.storage.releaseResidentPages(buffer) }
        }
    }

    /// Whether node `index`'s inputs have the shapes they had when it was last prepared.
    private func inputShapesUnchanged(_ index: Int) -> Bool {
        guard index < preparedShapeVersions.count else { return false }
        let inputs = kernels[index].node.inputs
        let versions = preparedShapeVersions[index]
        guard versions.count == inputs.count else { return false }
        for (input, version) in zip(inputs, versions) where (input?.shapeVersion ?? -1) != version { return false }
        return true
    }

    /// Whether `kernel` is shape arithmetic that can run now: see ``Kernel/foldsAtPlanning``.
    private static func canFold(_ kernel: Kernel, known: Set<Int>) -> Bool {
        guard kernel.foldsAtPlanning else { return false }
        for output in kernel.node.outputs {
            guard output.type == .int32 || output.type == .int64, output.elementCount <= 4096, !output.isVariable else { return false }
        }
        if kernel is Shape { return true }
        return kernel.node.inputs.allSatisfy { input in
            guard let input else { return true }
            return input.storage == .constant || known.contains(input.index)
        }
    }
}
