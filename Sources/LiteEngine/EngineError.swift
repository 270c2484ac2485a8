import LiteFormat

/// Why a model could not be loaded or run. Every case names what is wrong and, for ops, the node.
public enum EngineError: Error, CustomStringConvertible, Sendable {
    /// The file could not be read (see LiteFormat's `FormatError`).
    case format(FormatError)
    /// No kernel for this op, or not for this version.
    case unsupportedOperator(node: Int, op: String, version: Int)
    /// The op exists but not for these tensor types, shapes or options.
    case unsupported(node: Int, op: String, reason: String)
    /// The model is well-formed bytes but inconsistent (wrong input count, shapes that do not fit).
    case invalidNode(node: Int, op: String, reason: String)
    /// A caller mistake: an index, name, shape or dtype that does not fit the model.
    case invalidArgument(String)
    /// ``Interpreter/cancel()`` stopped the invocation (before `node`, counted in the subgraph that was running).
    case cancelled(node: Int)
    /// `LITEVISION_ISA` asked for microkernels of an instruction-set level this CPU does not have.
    case instructionSetUnavailable(requested: InstructionSetLevel, available: InstructionSetLevel)
    /// A system library the engine needs could not be loaded; `package` is the Debian package that provides it.
    case libraryUnavailable(library: String, package: String, reason: String)

    /// The error as one line, naming the node and op where there is one (such as `node 3: FOO version 2 is not supported`).
    public var description: String {
        switch self {
        case let .format(error): return error.description
        case let .unsupportedOperator(node, op, version): return "node \(node): \(op) version \(version) is not supported"
        case let .unsupported(node, op, reason): return "node \(node) (\(op)): unsupported: \(reason)"
        case let .invalidNode(node, op, reason): return "node \(node) (\(op)): \(reason)"
        case let .invalidArgument(reason): return reason
        case let .cancelled(node): return "cancelled before node \(node)"
        case let .instructionSetUnavailable(requested, available):
            return "LITEVISION_ISA=\(requested) needs CPU features this machine lacks (highest available: \(available))"
        case let .libraryUnavailable(library, package, reason):
            return "\(library) could not be loaded (install the Debian package \(package)): \(reason)"
        }
    }
}

/// Thrown by kernels; the interpreter adds node index and op name.
struct KernelError: Error {
    let reason: String
    let unsupported: Bool

    static func invalid(_ reason: String) -> KernelError { KernelError(reason: reason, unsupported: false) }
    static func unsupported(_ reason: String) -> KernelError { KernelError(reason: reason, unsupported: true) }
}
