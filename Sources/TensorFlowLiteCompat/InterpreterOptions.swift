extension Interpreter {
    /// How an ``Interpreter`` runs.
    public struct Options: Equatable, Hashable, Sendable {
        /// The most threads the interpreter may use; `nil` (the default) or a value below 1 lets it choose, which
        /// here means one thread.
        public var threadCount: Int? = nil

        /// Whether TensorFlow Lite should run float ops through its XNNPACK delegate. Accepted and ignored:
        /// LiteVision always runs its own kernels, which for quantized models may differ from TensorFlow Lite's
        /// built-in kernels by one quantization step, as XNNPACK's do.
        public var isXNNPackEnabled: Bool = false

        /// Options with the default values.
        public init() {}
    }
}

/// The former name of ``Interpreter/Options``, kept as TensorFlowLiteSwift keeps it.
@available(*, deprecated, renamed: "Interpreter.Options")
public typealias InterpreterOptions = Interpreter.Options
