import LiteFormat

/// VAR_HANDLE: names a resource variable (``ResourceVariables``) by its container and shared name; its output, a
/// resource tensor, holds the variable's identity (8 bytes of its own) for READ_VARIABLE and ASSIGN_VARIABLE.
final class VarHandle: Kernel {
    let identity: Int

    required init(_ node: NodeContext) throws {
        let options = try VarHandleOptions(node.options)
        identity = try node.resources.identity(container: options.container, sharedName: options.sharedName)
        try super.init(node)
        try expectCounts(inputs: 0...0, outputs: 1)
    }

    override func prepare() throws {
        let output = try self.output(0)
        guard output.type == .resource, !output.isVariable else {
            throw KernelError.invalid("VAR_HANDLE output must be a resource tensor that is not a variable, is \(output.type)")
        }
        output.shape = []
        // Always 8 bytes of its own (makePersistent keeps a large enough buffer): the identity is read back as 8 bytes.
        output.makePersistent(byteCount: 8)
        output.data!.storeBytes(of: Int64(identity), as: Int64.self)
    }
}

/// The variable identity a resource tensor written by VAR_HANDLE holds.
func resourceIdentity(_ tensor: Tensor) throws -> Int {
    // Only VAR_HANDLE makes a resource tensor persistent and not a variable, with 8 bytes.
    guard tensor.type == .resource, tensor.storage == .persistent, !tensor.isVariable, let data = tensor.data else {
        throw KernelError.invalid("tensor \(tensor.index) is not a resource written by VAR_HANDLE")
    }
    return Int(data.load(as: Int64.self))
}
