/// Places intermediate tensors in one arena so that tensors whose lifetimes overlap never share bytes.
///
/// Greedy by size (the strategy of TFLite's `ArenaPlanner`/`GreedyMemoryPlanner`): the largest tensor is
/// placed first, each next one at the lowest 64-byte-aligned offset that does not collide with an
/// already placed tensor alive at the same time.
struct ArenaPlanner {
    struct Request {
        let id: Int
        let bytes: Int
        /// First and last node index (inclusive) during which the tensor must hold its value.
        let firstUse: Int
        let lastUse: Int
    }

    static let alignment = 64

    /// Returns each request's offset, indexed by its id (nil for ids not requested), and the arena size.
    static func plan(_ requests: [Request]) -> (offsets: [Int?], size: Int) {
        let order = requests.sorted { ($0.bytes, $1.id) > ($1.bytes, $0.id) }
        var placed: [(offset: Int, end: Int, first: Int, last: Int)] = []
        placed.reserveCapacity(requests.count)
        var offsets = [Int?](repeating: nil, count: (requests.map(\.id).max() ?? -1) + 1)
        var size = 0
        for request in order {
            let bytes = (request.bytes + alignment - 1) / alignment * alignment
            let conflicts = placed
                .filter { $0.first <= request.lastUse && request.firstUse <= $0.last }
                .sorted { $0.offset < $1.offset }
            var candidate = 0
            for other in conflicts {
                if candidate + bytes <= other.offset { break }
                candidate = max(candidate, other.end)
            }
            placed.append((candidate, candidate + bytes, request.firstUse, request.lastUse))
            offsets[request.id] = candidate
            size = max(size, candidate + bytes)
        }
        return (offsets, size)
    }
}
