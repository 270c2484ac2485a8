/// The memory an interpreter's plan gives its intermediate tensors: one arena, placed by ``ArenaPlanner`` from the
/// tensors' lifetimes, and one scratch buffer shared by all nodes (the largest `scratchBytes` of any kernel: im2col,
/// decoded boxes).
///
/// The state skips run-time exclusivity checks, as ``Tensor``'s properties do: a WHILE body plans at every step, and
/// the checks' calls are a sizeable share of a small recurrent model's time.
final class ArenaMemory {
    @exclusivity(unchecked) private(set) var arena: UnsafeMutableRawBufferPointer?
    @exclusivity(unchecked) private(set) var scratch: UnsafeMutableRawBufferPointer?
    /// Per tensor index, the bytes its arena region was planned with (-1: no region, the tensor has no lifetime). A
    /// subgraph planned from its inputs' values keeps its plan while every tensor still fits its region.
    @exclusivity(unchecked) private(set) var plannedBytes: [Int] = []
    /// Bytes of the arena at the current plan.
    @exclusivity(unchecked) private(set) var arenaBytes = 0
    /// Bytes of the scratch buffer at the current plan.
    @exclusivity(unchecked) private(set) var scratchBytes = 0

    deinit {
        arena?.deallocate()
        scratch?.deallocate()
    }

    /// Whether every arena tensor of `tensors` fits the region the current plan gave it (or the tensor it is an alias
    /// of, in `aliases`).
    func fitTheirRegions(_ tensors: [Tensor], aliases: [Int: Int]) -> Bool {
        guard plannedBytes.count == tensors.count else { return false }
        for tensor in tensors where tensor.storage == .arena {
            // -1: the tensor had no lifetime in the plan (no node reads or writes it), so it needs no region.
            let planned = plannedBytes[aliases[tensor.index] ?? tensor.index]
            if planned >= 0 && tensor.byteCount > planned { return false }
        }
        return true
    }

    /// Plans the arena for the arena tensors of `tensors` at their current sizes and `lifetimes` (an alias takes the
    /// region of the tensor it shares), allocates it and points each tensor into it, and grows the scratch buffer to
    /// `neededScratch` bytes. With `headroom` (a subgraph planned again from its inputs' values) each region stays at
    /// least as large as in the last plan, and one that must grow is planned at twice its size, unless that would pass
    /// `memoryLimit`; a plan over `memoryLimit` is an error, not an allocation.
    func plan(_ tensors: [Tensor], lifetimes: TensorLifetimes, aliases: [Int: Int], neededScratch: Int, headroom: Bool, memoryLimit: Int) throws {
        let growing = headroom && plannedBytes.count == tensors.count
        var plan: (requests: [ArenaPlanner.Request], offsets: [Int?], size: Int)?
        var failure = "the plan needs more than the memory limit of \(memoryLimit) bytes"
        for withHeadroom in growing ? [true, false] : [false] {
            var requests: [ArenaPlanner.Request] = []
            for tensor in tensors where tensor.storage == .arena && aliases[tensor.index] == nil {
                guard let firstUse = lifetimes.first[tensor.index] ?? lifetimes.last[tensor.index].map({ _ in -1 }) else { continue }
                var bytes = tensor.byteCount
                if withHeadroom {
                    let before = plannedBytes[tensor.index]
                    bytes = bytes > before && before > 0 ? max(bytes, 2 * before) : max(bytes, before)
                }
                requests.append(.init(id: tensor.index, bytes: bytes, firstUse: firstUse, lastUse: lifetimes.last[tensor.index] ?? firstUse))
            }
            let requested = requests.reduce(0) { $0 + $1.bytes } + neededScratch
            guard requests.allSatisfy({ $0.bytes <= memoryLimit }), requested <= memoryLimit * 4 else { continue }
            let (offsets, size) = ArenaPlanner.plan(requests)
            guard size + neededScratch <= memoryLimit else {
                failure = "the plan needs \(size) arena + \(neededScratch) scratch bytes, over the memory limit of \(memoryLimit)"
                continue
            }
            plan = (requests, offsets, size)
            break
        }
        guard let (requests, offsets, size) = plan else { throw EngineError.invalidArgument(failure) }
        plannedBytes = [Int](repeating: -1, count: tensors.count)
        for request in requests { plannedBytes[request.id] = request.id < offsets.count && offsets[request.id] != nil ? request.bytes : 0 }
        arena?.deallocate()
        // Not zeroed: every intermediate is written before it is read, and touching 6 MB here costs load time.
        arena = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
        arenaBytes = size
        for tensor in tensors where tensor.storage == .arena {
            let id = aliases[tensor.index] ?? tensor.index
            if id < offsets.count, let offset = offsets[id] {
                tensor.arenaOffset = offset
                tensor.data = arena!.baseAddress! + offset
            } else {
                tensor.data = nil
            }
        }
        if neededScratch > scratchBytes || scratch == nil {
            scratch?.deallocate()
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(neededScratch, ArenaPlanner.alignment), alignment: ArenaPlanner.alignment)
            scratchBytes = neededScratch
        }
    }
}

extension Interpreter {
    /// Plans the arena and scratch for the current shapes, unless the current plan still holds them.
    func planArena() throws {
        let neededScratch = kernels.map(\.scratchBytes).max() ?? 0
        if currentPlanFits(neededScratch: neededScratch) { return }
        let lifetimes = TensorLifetimes(kernels: kernels, graph: subgraph, tensorCount: tensors.count, lateReads: lateReads, aliases: aliases)
        try memory.plan(tensors, lifetimes: lifetimes, aliases: aliases, neededScratch: neededScratch, headroom: plansWithInputValues,
                        memoryLimit: options.memoryLimit)
    }

    /// Whether the current plan still holds every arena tensor and the scratch at their current sizes: a WHILE body
    /// planned again at every step (its slices follow the loop counter) keeps its plan then, and its tensors' regions
    /// were planned at up to twice the size they grew to (``ArenaMemory/plan(_:lifetimes:aliases:neededScratch:headroom:memoryLimit:)``),
    /// so a loop that grows a slice step by step plans about log2(steps) times in its first run and not at all in the
    /// runs after.
    private func currentPlanFits(neededScratch: Int) -> Bool {
        guard plansWithInputValues, memory.arena != nil, neededScratch <= memory.scratchBytes else { return false }
        return tensorsFitTheirRegions()
    }

    /// Whether every arena tensor's bytes fit the region the current plan gave it (the invariant
    /// ``currentPlanFits(neededScratch:)`` keeps; tests check it after loops planned from values).
    func tensorsFitTheirRegions() -> Bool {
        memory.fitTheirRegions(tensors, aliases: aliases)
    }
}
