extension Interpreter {
    /// Sets input `index` to `shape` without the signature check of ``resizeInput(at:to:strict:)``: a WHILE or IF gives
    /// its subgraphs the shapes of its own operands.
    func setInputShape(_ index: Int, _ shape: [Int]) throws {
        let tensor = tensors[subgraph.inputs[index]]
        if tensor.shape != shape {
            tensor.shape = shape
            if plansWithInputValues { try makeInputsPersistent([tensor]) }
            needsPlan = true
        }
    }

    /// Gives inputs memory of their own (planning from their values), within the memory limit: a loop variable's
    /// hostile shape must be an error, not gigabytes allocated and zeroed.
    private func makeInputsPersistent(_ inputs: [Tensor]) throws {
        let bytes = inputs.reduce(0) { $0 + $1.byteCount }
        guard bytes <= options.memoryLimit else {
            throw EngineError.invalidArgument("subgraph inputs of \(bytes) bytes, over the memory limit of \(options.memoryLimit)")
        }
        for tensor in inputs { tensor.makePersistent(byteCount: tensor.byteCount) }
    }

    /// Makes planning read the inputs' current values: shape arithmetic on them (RESHAPE, ADD, CONCATENATION of int
    /// tensors) folds, so that a SLICE whose bounds depend on them gets its shape. For a WHILE body whose shapes
    /// follow a loop variable (a Keras LSTM writing step i of its output sequence slices its buffer at i): the inputs
    /// keep their own memory, and the caller replans (``replan()``) after every change of their values.
    func planWithInputValues() throws {
        plansWithInputValues = true
        preparedShapeVersions = [[Int]](repeating: [], count: kernels.count)
        try makeInputsPersistent(subgraph.inputs.map { tensors[$0] })
        needsPlan = true
    }

    /// Plans again, for the inputs' current values when ``plansWithInputValues``.
    func replan() throws {
        needsPlan = true
        try allocateTensors()
    }
}
