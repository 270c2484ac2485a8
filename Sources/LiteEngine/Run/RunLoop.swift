import Foundation

extension Interpreter {
    /// What a run does besides running the nodes: ``invoke()`` asks for nothing, ``invoke(observingEachNode:)`` for an
    /// observer, ``invokeProfiled()`` for timings and an observer that records them.
    struct RunOptions {
        /// Whether each node's wall time is measured (its preparation again after a shrunk output included).
        var timesNodes = false
        /// Called after each node, folded ones included, with the node's index and its wall time in seconds (0 unless
        /// ``timesNodes``).
        var afterEachNode: ((_ node: Int, _ seconds: Double) throws -> Void)?
    }

    /// The one run loop: runs every node once, in order, on the current input contents.
    ///
    /// Before each node it reads the cancellation flag (``cancel()``) and throws ``EngineError/cancelled(node:)`` when
    /// it is set; a request made while nothing ran does not stop this run (as TFLite's Invoke clears it), and a nested
    /// subgraph's run (a WHILE body) keeps the request of the run it is part of. After a node that shrank an output
    /// (``Kernel/shrinksOutputsWhenRunning``) every later node is prepared again (``prepareAgain(_:)``). Folded nodes
    /// (``NodeFusion``) do not run.
    func runNodes(_ runOptions: RunOptions = RunOptions()) throws {
        if enclosingSubgraphs.count == 1 { cancellation.clear() }
        try allocateTensors()
        let context = RunContext(scratch: memory.scratch!.baseAddress!, threads: options.threads)
        let cancellation = cancellation, timesNodes = runOptions.timesNodes
        var shrunk = false
        for (index, kernel) in kernels.enumerated() {
            if cancellation.isRequested { throw EngineError.cancelled(node: index) }
            let start = timesNodes ? DispatchTime.now().uptimeNanoseconds : 0
            if shrunk { try prepareAgain(index) }
            if !folded[index] {
                try Self.nodeStep(index, nodeCodes[index]) { try kernel.run(context) }
                shrunk = shrunk || kernel.shrinksOutputsWhenRunning
            }
            if let afterEachNode = runOptions.afterEachNode {
                let seconds = timesNodes ? Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 : 0
                try afterEachNode(index, seconds)
            }
        }
    }

    /// Prepares node `index` again after a node before it shrank an output (``Kernel/shrinksOutputsWhenRunning``):
    /// its shapes follow the smaller ones, and must still fit the memory the plan gave them.
    private func prepareAgain(_ index: Int) throws {
        let kernel = kernels[index]
        try Self.nodeStep(index, nodeCodes[index]) {
            try kernel.prepare()
            guard kernel.scratchBytes <= memory.scratchBytes, tensorsFitTheirRegions() else {
                throw KernelError.unsupported("shapes after a value-dependent output grew beyond the memory planned for them")
            }
        }
    }
}
