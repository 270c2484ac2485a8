import LiteFormat

/// SPLIT_V: inputs (value, size_splits, axis); parts of the given sizes, one of which may be -1 (the rest).
final class SplitV: Split {
    override var valueIndex: Int { 0 }

    override func axisTensor() throws -> Tensor { try input(2) }

    override func splitSizes(axisSize: Int) throws -> [Int] {
        var sizes = try integers(try input(1))
        if let unknown = sizes.firstIndex(of: -1) {
            sizes[unknown] = axisSize - sizes.enumerated().filter { $0.offset != unknown }.map(\.element).reduce(0, +)
        }
        return sizes
    }
}
