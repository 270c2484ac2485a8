import LiteFormat

/// The fusion passes over a graph's kernels (``Interpreter/Options/fusesActivations``): a node whose output only one
/// other node reads (a spatial PAD: only convolutions), and which is not a graph output, is folded into that node or
/// into the node that writes its input, when both sides conform to the pass's protocols. Each pass is in its own file
/// beside this one, in the order they run:
/// - ``foldSpatialPads(_:_:)``: a float PAD of zeros on height and width into the convolutions that read it (which
///   are replaced by kernels reading the PAD's input);
/// - ``foldChannelPads(_:_:)``: a float PAD of zeros after the last axis into the ADD that reads it;
/// - ``foldSwishes(_:_:)``: a float LOGISTIC into the MUL of a swish;
/// - ``foldClamps(_:_:)``: a float clamp (RELU, RELU6, ...) into the node that writes its input;
/// - ``foldIntoConvolutionStores(_:_:)``: a float ADD or PRELU into the convolution whose output it reads;
/// - ``foldReshapes(_:_:_:)``: a RESHAPE, SQUEEZE or EXPAND_DIMS of activations into the bytes of its input.
///
/// Every fusion gives the same output bits as the unfused nodes, but for one corner of the spatial PAD's: a folded PAD's
/// zeros are skipped, not multiplied, so an infinite or NaN weight on a padding tap, which gives NaN unfolded, does not
/// (and a sum of nothing but padding and a bias of -0 stays -0). What changes is that a folded node does not run.
struct NodeFusion {
    /// Per node: folded into another node, so it does not run.
    private(set) var folded: [Bool]
    /// Tensor index -> the tensor whose bytes it shares: a folded clamp's or reshape's output is its input.
    private(set) var aliases: [Int: Int] = [:]
    /// Tensors a node reads in place of a folded node's output (``ChannelPadAbsorbing``), with that node: they must
    /// live until it runs.
    private(set) var lateReads: [(tensor: Int, node: Int)] = []

    /// No node folded.
    init(unfused nodeCount: Int) {
        folded = [Bool](repeating: false, count: nodeCount)
    }

    /// Runs every fusion pass over `kernels`, the nodes of `graph` in order; a pass may replace a node's kernel.
    init(_ kernels: inout [Kernel], _ graph: SubGraphDescription) throws {
        self.init(unfused: kernels.count)
        try foldSpatialPads(&kernels, graph)
        let uses = TensorUses(kernels, graph)
        foldChannelPads(kernels, uses)
        foldSwishes(kernels, uses)
        foldClamps(kernels, uses)
        foldIntoConvolutionStores(kernels, uses)
        foldReshapes(kernels, uses, graph)
    }

    /// Marks node `node` as folded.
    mutating func fold(_ node: Int) { folded[node] = true }
    /// Makes tensor `alias` share the bytes of tensor `shared`. Every alias names the tensor that owns the bytes: a
    /// tensor that already shared `alias`'s bytes (a clamp's output folded into the node now folded) shares `shared`'s.
    mutating func alias(_ alias: Int, to shared: Int) {
        let owner = aliases[shared] ?? shared
        aliases[alias] = owner
        for (other, target) in aliases where target == alias { aliases[other] = owner }
    }
    /// Keeps tensor `tensor` alive until node `node` runs.
    mutating func keepAlive(_ tensor: Int, until node: Int) { lateReads.append((tensor, node)) }
}

/// Who reads and who writes each tensor of a graph, as the fusion passes need it.
struct TensorUses {
    /// Tensor index -> the number of node inputs that read it, a graph output counting as one more.
    let readers: [Int: Int]
    /// Tensor index -> the node that writes it.
    let writer: [Int: Int]

    init(_ kernels: [Kernel], _ graph: SubGraphDescription) {
        var readers = [Int: Int](), writer = [Int: Int]()
        for index in graph.outputs { readers[index, default: 0] += 1 }
        for (node, kernel) in kernels.enumerated() {
            for input in kernel.node.inputs { if let input { readers[input.index, default: 0] += 1 } }
            for output in kernel.node.outputs { writer[output.index] = node }
        }
        self.readers = readers
        self.writer = writer
    }
}
