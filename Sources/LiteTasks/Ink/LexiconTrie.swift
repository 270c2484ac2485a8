/// The lexicon's words as a trie of their symbols, flattened into arrays: node n has the children
/// `edgeSymbol/edgeTarget[childStart[n] ..< childStart[n] + childCount[n]]`, and node 0 is the root (the empty prefix).
/// Sorted words put every node's subtree in one contiguous run of them, so the trie is built in one pass.
struct LexiconTrie {
    private let childStart: [Int32]
    private let childCount: [UInt8]
    private let edgeSymbol: [UInt8]
    private let edgeTarget: [Int32]
    /// Total count of the words under the node (those ending at it included), and of those ending at it; and
    /// the same counts of names only.
    let mass: [Double]
    let ends: [Double]
    let nameMass: [Double]
    let nameEnds: [Double]

    /// The trie of `lexicon`'s words, taken in `order` (lexicographic order, ``InkLanguageModel/Lexicon/sortedOrder()``).
    init(_ lexicon: InkLanguageModel.Lexicon, order: [Int32]) {
        let trie = lexicon.symbols.withUnsafeBufferPointer { symbols in
            lexicon.start.withUnsafeBufferPointer { start in
                lexicon.length.withUnsafeBufferPointer { length in
                    lexicon.count.withUnsafeBufferPointer { count in
                        lexicon.isName.withUnsafeBufferPointer { isName in
                            order.withUnsafeBufferPointer { order in
                                var builder = Builder(symbols: symbols, start: start, length: length, count: count, isName: isName, order: order,
                                                      symbolCount: lexicon.letters.symbolCount)
                                _ = builder.build(0..<order.count, depth: 0)
                                return builder.finish()
                            }
                        }
                    }
                }
            }
        }
        (mass, ends, nameMass, nameEnds) = (trie.mass, trie.ends, trie.nameMass, trie.nameEnds)
        (childStart, childCount, edgeSymbol, edgeTarget) = (trie.childStart, trie.childCount, trie.edgeSymbol, trie.edgeTarget)
    }

    /// The child of `node` along `symbol`, if the lexicon has a word with that prefix.
    @inline(__always) func child(of node: Int32, _ symbol: UInt8) -> Int32? {
        let start = Int(childStart[Int(node)])
        for e in start..<(start + Int(childCount[Int(node)])) where edgeSymbol[e] == symbol { return edgeTarget[e] }
        return nil
    }

    /// The trie under construction, depth-first: a node's edges are reserved before its children are built. The
    /// node count is known beforehand (one node per distinct prefix), so every array is allocated once and written
    /// in place, and the children still to build wait on one stack (each call's groups above its caller's), rather
    /// than arrays captured by a local recursive function, whose every append checks exclusive access at run time.
    private struct Builder {
        let symbols: UnsafeBufferPointer<UInt8>, start: UnsafeBufferPointer<Int32>, length: UnsafeBufferPointer<UInt8>
        let count: UnsafeBufferPointer<Double>, isName: UnsafeBufferPointer<Bool>, order: UnsafeBufferPointer<Int32>
        let mass, ends, nameMass, nameEnds: UnsafeMutableBufferPointer<Double>
        let childStart: UnsafeMutableBufferPointer<Int32>, childCount: UnsafeMutableBufferPointer<UInt8>
        let edgeSymbol: UnsafeMutableBufferPointer<UInt8>, edgeTarget: UnsafeMutableBufferPointer<Int32>
        let groupSymbol: UnsafeMutableBufferPointer<UInt8>, groupRange: UnsafeMutableBufferPointer<Range<Int>>
        var nodes = 0, edges = 0, groups = 0

        init(symbols: UnsafeBufferPointer<UInt8>, start: UnsafeBufferPointer<Int32>, length: UnsafeBufferPointer<UInt8>,
             count: UnsafeBufferPointer<Double>, isName: UnsafeBufferPointer<Bool>, order: UnsafeBufferPointer<Int32>, symbolCount: Int) {
            (self.symbols, self.start, self.length, self.count, self.isName, self.order) = (symbols, start, length, count, isName, order)
            // Distinct prefixes: each word's length past what it shares with the word before it in order.
            var nodeCount = 1
            for i in order.indices {
                let w = Int(order[i]), wordLength = Int(length[w])
                var shared = 0
                if i > 0 {
                    let p = Int(order[i - 1])
                    let limit = min(wordLength, Int(length[p]))
                    while shared < limit, symbols[Int(start[w]) + shared] == symbols[Int(start[p]) + shared] { shared += 1 }
                }
                nodeCount += wordLength - shared
            }
            mass = .allocate(capacity: nodeCount); ends = .allocate(capacity: nodeCount)
            nameMass = .allocate(capacity: nodeCount); nameEnds = .allocate(capacity: nodeCount)
            childStart = .allocate(capacity: nodeCount); childCount = .allocate(capacity: nodeCount)
            edgeSymbol = .allocate(capacity: nodeCount - 1); edgeTarget = .allocate(capacity: nodeCount - 1)
            // At most one child per symbol waits at each depth of the current path.
            let groupCapacity = symbolCount * (InkLanguageModel.maximumWordLength + 1)
            groupSymbol = .allocate(capacity: groupCapacity); groupRange = .allocate(capacity: groupCapacity)
        }

        /// The node of the words `order[range]`, which share their first `depth` symbols.
        mutating func build(_ range: Range<Int>, depth: Int) -> Int32 {
            let node = nodes
            nodes += 1
            precondition(node < mass.count, "the trie has one node per distinct prefix")
            var total = 0.0, ending = 0.0, names = 0.0, namesEnding = 0.0
            let base = groups
            var i = range.lowerBound
            while i < range.upperBound {
                let w = Int(order[i])
                if Int(length[w]) == depth {
                    ending += count[w]
                    if isName[w] { namesEnding += count[w] }
                    i += 1
                    continue
                }
                let symbol = symbols[Int(start[w]) + depth]
                var j = i + 1
                while j < range.upperBound {
                    let v = Int(order[j])
                    guard Int(length[v]) > depth, symbols[Int(start[v]) + depth] == symbol else { break }
                    j += 1
                }
                groupSymbol[groups] = symbol
                groupRange[groups] = i..<j
                groups += 1
                i = j
            }
            for k in range {
                let w = Int(order[k])
                total += count[w]
                if isName[w] { names += count[w] }
            }
            (mass[node], ends[node], nameMass[node], nameEnds[node]) = (total, ending, names, namesEnding)
            let first = edges, children = groups - base
            edges += children
            precondition(edges <= edgeSymbol.count, "the trie has one edge per node but the root")
            childStart[node] = Int32(first)
            childCount[node] = UInt8(children)
            for k in 0..<children {
                edgeSymbol[first + k] = groupSymbol[base + k]
                edgeTarget[first + k] = build(groupRange[base + k], depth: depth + 1)
            }
            groups = base
            return Int32(node)
        }

        /// The arrays, and the memory built in freed.
        func finish() -> (mass: [Double], ends: [Double], nameMass: [Double], nameEnds: [Double], childStart: [Int32],
                          childCount: [UInt8], edgeSymbol: [UInt8], edgeTarget: [Int32]) {
            precondition(nodes == mass.count && edges == edgeSymbol.count, "the trie's node count was foreseen")
            defer {
                for buffer in [mass, ends, nameMass, nameEnds] { buffer.deallocate() }
                childStart.deallocate(); childCount.deallocate(); edgeSymbol.deallocate(); edgeTarget.deallocate()
                groupSymbol.deallocate(); groupRange.deallocate()
            }
            return (Array(mass), Array(ends), Array(nameMass), Array(nameEnds), Array(childStart), Array(childCount),
                    Array(edgeSymbol), Array(edgeTarget))
        }
    }
}
