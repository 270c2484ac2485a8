/// ASSIGN_VARIABLE: stores its second input as the value of the resource variable its first input names; the
/// value (its type and shape too) stays until the next assignment, from one run to the next.
final class AssignVariable: Kernel {
    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: 2...2, outputs: 0)
    }

    override func prepare() throws {
        _ = try elementSize(try input(1))
    }

    override func run(_ context: RunContext) throws {
        try node.resources.assign(try resourceIdentity(try input(0)), try input(1))
    }
}
