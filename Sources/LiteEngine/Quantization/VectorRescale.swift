/// Runs `body(out, a, stepA, b, stepB, count)` over a numpy broadcast of two operands as runs along the last axis:
/// each operand's step there is 1 (it advances) or 0 (it repeats one value).
@inline(__always)
func forEachBroadcastRun(aShape: [Int], bShape: [Int], outShape: [Int], _ body: (Int, Int, Int, Int, Int, Int) -> Void) {
    let total = outShape.reduce(1, *)
    if aShape == bShape { return total > 0 ? body(0, 0, 1, 0, 1, total) : () }
    let (shape, sa, sb) = mergedBroadcastDimensions(aShape: aShape, bShape: bShape, outShape: outShape)
    let rank = shape.count, inner = shape[rank - 1]
    var index = Array(repeating: 0, count: rank)
    var ia = 0, ib = 0, o = 0
    while o < total {
        body(o, ia, sa[rank - 1], ib, sb[rank - 1], inner)
        o += inner
        var d = rank - 2
        while d >= 0 {
            index[d] += 1
            ia += sa[d]
            ib += sb[d]
            if index[d] < shape[d] { break }
            ia -= sa[d] * shape[d]
            ib -= sb[d] * shape[d]
            index[d] = 0
            d -= 1
        }
    }
}
