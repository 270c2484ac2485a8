import LiteFormat

/// How quantized kernels may compute: bit-exact with TensorFlow Lite's reference kernels, or faster within 1 LSB.
public enum Numerics: String, Sendable, CaseIterable {
    /// Integer-exact paths: quantized convolutions multiply in double precision and requantize with TFLite's scalar
    /// fixed-point steps.
    case exact
    /// The default: quantized layers multiply in single precision, int16 multiply-adds or int8 dot products, and
    /// replay the fixed-point rescale in vectorized double arithmetic; bit-exact with LiteRT on every golden (one
    /// step apart at most, on values within 2^-21 of a rounding tie).
    case fast
}

/// What a kernel sees of its node while the plan is built.
struct NodeContext {
    let model: TFLiteModel
    let index: Int
    let code: OperatorCode
    let options: FlatTable?
    let customOptions: UnsafeRawBufferPointer?
    /// nil for an omitted optional input (index -1 in the file).
    let inputs: [Tensor?]
    let outputs: [Tensor]
    let intermediates: [Tensor]
    let numerics: Numerics
    /// The interpreter's options and the chain of subgraphs this node is in (outermost first), for control-flow
    /// nodes that build interpreters of other subgraphs.
    var interpreterOptions = Interpreter.Options()
    var subgraphs = [0]
    var subgraphBudget = SubgraphBudget()
    /// The model's resource variables, shared by all its subgraphs' interpreters.
    var resources = ResourceVariables()
    /// The interpreter's cancellation request, which nested interpreters share.
    var cancellation = Cancellation()

    /// The subgraph this node is in.
    var subgraph: Int { subgraphs.last ?? 0 }

    /// The same node reading `tensor` as its input `index` (a fusion pass that makes a node read past a folded one).
    func replacingInput(_ index: Int, with tensor: Tensor) -> NodeContext {
        var inputs = self.inputs
        inputs[index] = tensor
        return NodeContext(model: model, index: self.index, code: code, options: options, customOptions: customOptions, inputs: inputs,
                           outputs: outputs, intermediates: intermediates, numerics: numerics, interpreterOptions: interpreterOptions,
                           subgraphs: subgraphs, subgraphBudget: subgraphBudget, resources: resources, cancellation: cancellation)
    }
}

/// How many subgraph interpreters one model's control flow may build: each WHILE builds its own condition and
/// body, so a hostile model of a few subgraphs, each with several WHILE nodes on the next, would build
/// exponentially many.
final class SubgraphBudget: @unchecked Sendable {
    static let limit = 256
    private var remaining = limit

    /// Takes one interpreter from the budget; false when none is left.
    func take() -> Bool {
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }
}

/// What a kernel gets when it runs.
struct RunContext {
    /// Scratch memory for this node only, at least `scratchBytes` long, 64-byte aligned.
    let scratch: UnsafeMutableRawPointer
    let threads: Int
}

/// Base class of all kernels: one subclass per op, in Kernels/<OpName>.swift. What the fusion passes may fold is
/// not here but in small protocols beside them in Graph/ (``ClampAbsorbing``, ``FoldableClamp``, ...), which ops
/// conform to.
///
/// Life cycle (tflite-micro's Init/Prepare/Eval): `init` reads options and checks what does not depend on
/// shapes; `prepare()` checks shapes and types and sets output shapes (again after every input resize);
/// `run` computes. Everything that can be checked from shapes is checked in `prepare`; `run` throws only for
/// what depends on tensor contents (an out-of-range gather index).
class Kernel {
    let node: NodeContext

    required init(_ node: NodeContext) throws {
        self.node = node
    }

    func prepare() throws {}

    /// Whether the interpreter may run this node while planning when every input it reads is known then
    /// (constant, or itself computed while planning) and its outputs are small integer tensors: the shape
    /// arithmetic converters emit (SHAPE, GATHER, REDUCE_PROD, PACK, ...) so that a RESHAPE reading it sees a
    /// constant. SHAPE reads only its input's shape and always folds.
    var foldsAtPlanning: Bool { false }

    /// Scratch bytes `run` needs at the current shapes.
    var scratchBytes: Int { 0 }

    /// Whether `run` may make an output smaller than `prepare` made it (WHERE, UNIQUE: their output sizes follow values
    /// known only when running). `prepare` gives each output its largest shape, which the memory plan holds; after
    /// such a node runs, the interpreter prepares the nodes after it again for the shapes it left.
    var shrinksOutputsWhenRunning: Bool { false }

    func run(_ context: RunContext) throws {}

    // MARK: Helpers for subclasses

    func input(_ i: Int) throws -> Tensor {
        guard i < node.inputs.count, let tensor = node.inputs[i] else {
            throw KernelError.invalid("missing input \(i) (has \(node.inputs.count))")
        }
        return tensor
    }

    func optionalInput(_ i: Int) -> Tensor? {
        i < node.inputs.count ? node.inputs[i] : nil
    }

    /// Whether a tensor's values are known when the model loads (a constant, or a persistent tensor such as a
    /// DEQUANTIZE of a constant, computed once before the first run), so a kernel may repack them in ``prepare()``.
    func isLoadTimeConstant(_ tensor: Tensor) -> Bool {
        tensor.storage == .constant || (tensor.storage == .persistent && !tensor.isVariable)
    }

    func output(_ i: Int) throws -> Tensor {
        guard i < node.outputs.count else { throw KernelError.invalid("missing output \(i) (has \(node.outputs.count))") }
        return node.outputs[i]
    }

    func expectCounts(inputs: ClosedRange<Int>, outputs: Int) throws {
        guard inputs.contains(node.inputs.count) else {
            throw KernelError.invalid("expects \(inputs.lowerBound == inputs.upperBound ? "\(inputs.lowerBound)" : "\(inputs)") inputs, has \(node.inputs.count)")
        }
        guard node.outputs.count == outputs else {
            throw KernelError.invalid("expects \(outputs) outputs, has \(node.outputs.count)")
        }
    }

    func expectType(_ tensor: Tensor, _ allowed: TensorType...) throws {
        guard allowed.contains(tensor.type) else {
            throw KernelError.unsupported("tensor \(tensor.index) has type \(tensor.type); supported: \(allowed.map(\.description).joined(separator: ", "))")
        }
    }

    func expectRank(_ tensor: Tensor, _ rank: Int) throws {
        guard tensor.rank == rank else { throw KernelError.invalid("tensor \(tensor.index) has rank \(tensor.rank), expected \(rank)") }
    }

    /// Whether `prepare` has read a tensor's values (``integers(_:)``): its output shapes may then follow values, so a
    /// subgraph planned again from its inputs' values prepares it every time, where a kernel that reads only shapes
    /// is skipped while its inputs' shapes stay the same.
    var readsValuesWhilePreparing = false

    /// The values of a constant (or already computed) int32/int64 tensor, such as a shape or axis operand.
    func integers(_ tensor: Tensor) throws -> [Int] {
        readsValuesWhilePreparing = true
        // An empty shape operand (a reshape to a scalar) may have no buffer at all.
        if tensor.elementCount == 0 && (tensor.type == .int32 || tensor.type == .int64) { return [] }
        guard let data = tensor.data, tensor.storage != .arena || tensor.elementCount == 0 else {
            throw KernelError.unsupported("tensor \(tensor.index) must be constant")
        }
        switch tensor.type {
        case .int32: return (0..<tensor.elementCount).map { Int(data.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) }
        case .int64: return (0..<tensor.elementCount).map { Int(data.loadUnaligned(fromByteOffset: 8 * $0, as: Int64.self)) }
        default: throw KernelError.unsupported("tensor \(tensor.index) must be int32 or int64, is \(tensor.type)")
        }
    }
}

/// `activation` narrowed to also clamp to `range` when `output` is float and the two ranges meet (then clamping
/// to one and then the other is clamping to their intersection); false and unchanged otherwise.
func narrowActivation(_ activation: inout (Float, Float), to range: (Float, Float), output: Tensor) -> Bool {
    let low = max(activation.0, range.0), high = min(activation.1, range.1)
    guard output.type == .float32, low <= high else { return false }
    activation = (low, high)
    return true
}

/// A fused activation as LiteRT's built-in float kernels clamp to it: `CalculateActivationRange` gives ±FLT_MAX for
/// none, so an overflowing or infinite result reads ±3.4e38 (NaN passes through). The convolutions, FULLY_CONNECTED,
/// the pools, ADD, SUB, MUL and DIV clamp so; BATCH_MATMUL, POW, CONCATENATION and the reductions keep ±inf
/// (checked on LiteRT's built-in kernels; XNNPACK keeps ±inf everywhere).
func builtinActivationRange(_ activation: FusedActivation) throws -> (Float, Float) {
    let (low, high) = try activationRange(activation)
    return (max(low, -.greatestFiniteMagnitude), min(high, .greatestFiniteMagnitude))
}

/// Every fused activation as a float clamp range; TANH and SIGN_BIT are not fused by any converter in use.
func activationRange(_ activation: FusedActivation) throws -> (Float, Float) {
    switch activation {
    case .none: return (-.infinity, .infinity)
    case .relu: return (0, .infinity)
    case .reluN1To1: return (-1, 1)
    case .relu6: return (0, 6)
    case .tanh, .signBit: throw KernelError.unsupported("fused activation \(activation)")
    }
}
