/// An open-addressing hash table from n-gram keys (never 0xFFFF_FFFF) to values: the language model's tables,
/// several times faster to build and probe than Dictionary.
struct KeyTable<Value> {
    private var keys: [UInt32]
    private var values: [Value]
    private let empty: Value
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int, empty: Value) {
        let size = max(16, 1 << (Int.bitWidth - (capacity * 2 - 1).leadingZeroBitCount))
        keys = Array(repeating: .max, count: size)
        values = Array(repeating: empty, count: size)
        self.empty = empty
        mask = size - 1
    }

    @inline(__always) private func slot(_ key: UInt32) -> Int {
        var i = Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while keys[i] != key && keys[i] != .max { i = (i + 1) & mask }
        return i
    }

    subscript(key: UInt32) -> Value? {
        let i = slot(key)
        return keys[i] == key ? values[i] : nil
    }

    /// Applies `change` to the key's value (`initial` when absent); returns whether the key was new.
    @discardableResult
    mutating func update(_ key: UInt32, default initial: Value, _ change: (inout Value) -> Void) -> Bool {
        if count * 2 >= keys.count { grow() }
        let i = slot(key)
        let isNew = keys[i] != key
        if isNew {
            keys[i] = key
            values[i] = initial
        }
        change(&values[i])
        if isNew { count += 1 }
        return isNew
    }

    private mutating func grow() {
        var bigger = KeyTable(capacity: keys.count, empty: empty)
        for (key, value) in zip(keys, values) where key != .max { bigger.update(key, default: value) { _ in } }
        self = bigger
    }
}
