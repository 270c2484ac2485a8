#if LITE_AVX2 || LITE_AVX512_VNNI
import _Builtin_intrinsics.intel
#endif

/// The float convolution's matrix product `C = clamp(A · Fᵀ + bias)` with the filter F ([n, k], row-major, one
/// row per output channel) packed once at load, in the way XNNPACK's f32 GEMM microkernels read it: panels of 32
/// output channels, each panel k rows of 32 filter values with the panel's bias in front, zero-padded past n.
/// The microkernel keeps an 8-row by 32-column tile of C in 16 AVX-512 registers, broadcasts one value of each of
/// the 8 rows of A per step of k and adds the bias and the activation before the single store, so neither A nor C is
/// copied and there is no second pass. OpenBLAS's sgemm packs A and F on every call, which costs most on the small
/// layers (MobileNetV1 0.25, the face detector).
///
/// Layers with at most 16 output channels use panels of 16 (one AVX-512 register a row), and with at most 8
/// panels of 8 (one AVX register a row): a first layer with 8 output channels (MobileNetV1 0.25) computed three
/// quarters of a 32-wide tile on zero padding, and took a third of the model's time. For the same reason the last
/// panel of a wider layer is only as wide as it needs to be, 8, 16, 24 or 32 (an 8x24 tile is an AVX-512 and an
/// AVX register a row).
///
/// Rows go in tiles of 8; one or two rows left after the last whole tile take the one-row path (see below) rather
/// than a tile that would compute its first row eight times. With more than one thread the tiles are shared out;
/// on one thread a layer whose filter is larger than its input runs panel by panel instead, each panel through
/// every tile, so the filter is read once.
///
/// Builds with AVX2 but not AVX-512 use panels of 16 and a 6x16 tile in 12 AVX registers (XNNPACK's AVX2 shape),
/// or for layers of at most 8 output channels panels of 8 and a 6x8 tile (also for a last panel with at most 8 real
/// columns); partial columns are stored in pieces, not with `vmaskmovps`. A product with one row of A (a
/// classifier's last layer) streams the filter through 64 columns of registers instead (``oneRow``), in either build.
///
/// Only in builds with AVX2 or AVX-512 (`tools/swift-flags.sh` on such a CPU); elsewhere ``make(filter:n:k:bias:)``
/// returns nil and the convolution calls sgemm. The sums run over k in order for every output, as the
/// reference convolution does, but with fused multiply-adds, so results differ from sgemm's in the last bits.
final class PackedFilterGEMM: @unchecked Sendable {
    #if LITE_AVX512_VNNI
    static let tileRows = 8
    #else
    static let tileRows = 6
    #endif

    let n: Int, k: Int
    /// Output channels per panel: 32, or 16 or 8 for narrow layers.
    let panelWidth: Int
    /// The last panel's width: in AVX-512 builds the narrowest of 8, 16, 24 and 32 that holds the columns left over, so
    /// a layer of 24 (or 36, 42, 72) channels does not multiply 8 (or 28, 22, 24) columns of zero padding at every step.
    let lastPanelWidth: Int
    private let panels: Int
    /// Panel p at `packed + p · (k + 1) · panelWidth`: its width in biases, then k rows of that many filter values;
    /// 64-byte aligned.
    private let packed: UnsafeMutablePointer<Float>

    private init(filter: UnsafePointer<Float>, n: Int, k: Int, bias: UnsafePointer<Float>?) {
        self.n = n
        self.k = k
        #if LITE_AVX512_VNNI
        let panelWidth = n <= 8 ? 8 : n <= 16 ? 16 : 32
        #else
        let panelWidth = n <= 8 ? 8 : 16
        #endif
        self.panelWidth = panelWidth
        panels = (n + panelWidth - 1) / panelWidth
        let leftOver = n - (panels - 1) * panelWidth
        #if LITE_AVX512_VNNI
        lastPanelWidth = min((leftOver + 7) / 8 * 8, panelWidth)
        #else
        lastPanelWidth = panelWidth
        #endif
        let count = (panels - 1) * (k + 1) * panelWidth + (k + 1) * lastPanelWidth
        packed = allocateAligned(Float.self, count: count)
        packed.initialize(repeating: 0, count: count)
        for p in 0..<panels {
            let panel = packed + p * (k + 1) * panelWidth
            let stride = p == panels - 1 ? lastPanelWidth : panelWidth
            let width = min(stride, n - p * panelWidth)
            if let bias { panel.update(from: bias + p * panelWidth, count: width) }
            // Row by row of the panel: each row's values written in order, read from the panel's channels, whose next
            // values stay in cache for the rows that follow.
            let source = filter + p * panelWidth * k
            var destination = panel + stride
            for i in 0..<k {
                for j in 0..<width { destination[j] = source[j &* k &+ i] }
                destination += stride
            }
        }
    }

    /// Panel p's biases, followed by its k rows.
    @inline(__always)
    private func panelStart(_ p: Int) -> UnsafePointer<Float> { UnsafePointer(packed + p &* (k &+ 1) &* panelWidth) }

    @inline(__always)
    private func width(ofPanel p: Int) -> Int { p == panels &- 1 ? lastPanelWidth : panelWidth }

    deinit { deallocateAligned(packed) }

    /// The packed product for this filter, or nil in builds without AVX-512 or for shapes it does not take.
    static func make(filter: UnsafePointer<Float>, n: Int, k: Int, bias: UnsafePointer<Float>?) -> PackedFilterGEMM? {
        #if LITE_AVX2 || LITE_AVX512_VNNI
        guard n > 0, k > 0, saturatingProduct(n + 32, k + 1) < 1 << 28 else { return nil }
        return PackedFilterGEMM(filter: filter, n: n, k: k, bias: bias)
        #else
        return nil
        #endif
    }

    /// Where the microkernels read the rows of A: each row is `segments` pieces of `segmentLength` consecutive
    /// values (together k), found at `indirection[row · segments + s]` (a convolution read in place: one piece per
    /// filter row, XNNPACK's indirect GEMM), or one piece at `a + row · lda`.
    struct Rows {
        let a: UnsafePointer<Float>, lda: Int
        let indirection: UnsafePointer<UnsafePointer<Float>>?
        let segments: Int, segmentLength: Int

        @inline(__always)
        func pointer(_ row: Int, _ segment: Int) -> UnsafePointer<Float> {
            if let indirection { return indirection[row &* segments &+ segment] }
            return a + row &* lda
        }

        /// The same rows from `row` on.
        func starting(at row: Int) -> Rows {
            if let indirection {
                return Rows(a: a, lda: lda, indirection: indirection + row * segments, segments: segments, segmentLength: segmentLength)
            }
            return Rows(a: a + row * lda, lda: lda, indirection: nil, segments: segments, segmentLength: segmentLength)
        }
    }

    /// `c[r, 0..<n] = clamp(a[r, 0..<k] · Fᵀ + bias, low, high)` for `r` in `0..<rows`.
    func run(a: UnsafePointer<Float>, lda: Int, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
             activation: (Float, Float), threads: Int) {
        run(Rows(a: a, lda: lda, indirection: nil, segments: 1, segmentLength: k), count: rows, c: c, ldc: ldc, activation: activation, threads: threads)
    }

    /// The same product with row r of A the `segments` pieces of `k / segments` values at
    /// `indirection[r · segments ..< (r + 1) · segments]`.
    func run(indirection: UnsafePointer<UnsafePointer<Float>>, segments: Int, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
             activation: (Float, Float), threads: Int) {
        precondition(segments > 0 && k % segments == 0, "the pieces of a row must add up to k")
        guard rows > 0 else { return }
        run(Rows(a: indirection[0], lda: 0, indirection: indirection, segments: segments, segmentLength: k / segments), count: rows,
            c: c, ldc: ldc, activation: activation, threads: threads)
    }

    private func run(_ a: Rows, count rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float), threads: Int) {
        #if LITE_AVX2 || LITE_AVX512_VNNI
        guard rows > 0 else { return }
        // One or two rows past the last whole tile run as single rows (each streams the filter once, at about half a
        // tile's rate), not as a tile that computes all of its rows for them: a 7x7 layer's 49 rows are six tiles of
        // eight and one row, not seven tiles of which the last computes the same row eight times.
        let leftOver = rows % Self.tileRows
        let singleRows = rows == 1 ? 1 : leftOver <= 2 ? leftOver : 0
        let tiledRows = rows - singleRows
        if tiledRows > 0 { runTiles(a, count: tiledRows, c: c, ldc: ldc, activation: activation, threads: threads) }
        for r in tiledRows..<rows { runSingleRow(a.starting(at: r), c: c + r * ldc, activation: activation, threads: threads) }
        #endif
    }

    #if LITE_AVX2 || LITE_AVX512_VNNI
    /// One row of A times all of F.
    private func runSingleRow(_ a: Rows, c: UnsafeMutablePointer<Float>, activation: (Float, Float), threads: Int) {
        // Groups of 64 columns over the panels of full width; a narrower last panel is one item more.
        let narrowLast = lastPanelWidth < panelWidth
        let fullBlocks = narrowLast ? (panels - 1) * (panelWidth / 8) : (n + 7) / 8
        let groups = (fullBlocks + 7) / 8
        parallelFor(groups + (narrowLast ? 1 : 0), threads: threads, workPerItem: 64 * k) { groupRange in
            for g in groupRange {
                if g == groups {
                    lastPanelRow(a: a, c: c, activation: activation)
                } else {
                    oneRow(columnGroup: g, blocks: fullBlocks, a: a, c: c, activation: activation)
                }
            }
        }
    }

    /// `rows` rows of A in tiles of ``tileRows`` (the last tile may be partial).
    private func runTiles(_ a: Rows, count rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float), threads: Int) {
        let tiles = (rows + Self.tileRows - 1) / Self.tileRows
        let panelWork = Self.tileRows * panelWidth * k
        if n > rows && threads == 1 {
            // More filter than input (the last layers, 7x7 or 14x14 pixels), on one thread: each panel runs every row
            // tile through it, so each panel is read from memory once.
            parallelFor(panels, threads: 1) { panelRange in
                for p in panelRange {
                    for t in 0..<tiles { anyTile(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation) }
                }
            }
        } else {
            // The filter stays in cache while each row tile of the input is read once. Threads split the rows, also
            // when the filter is the larger operand. Split by panels, a 160-channel layer's five panels went three
            // to one thread and two to the other, and the 7x7 depthwise layers after MobileNetV2's 960-channel ones
            // (split by rows, as every op is) read half of their input from the other core's cache: 0.021 ms at 1
            // thread, 0.023 ms at 2.
            parallelFor(tiles, threads: threads, workPerItem: saturatingProduct(panels, panelWork)) { tileRange in
                for t in tileRange {
                    for p in 0..<panels { anyTile(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation) }
                }
            }
        }
    }

    /// One row of A (a classifier's last layer on its one pixel) times 64 columns of F: columns 64g ..< 64g + 64 in
    /// eight AVX registers, each an in-order chain of multiply-adds over k. A 6-row tile would compute the row six
    /// times over, and a single panel's two chains would wait on the multiply-add latency at every step of k.
    /// Blocks of 8 columns past n repeat the last real block and are not stored. AVX registers in AVX-512 builds
    /// too: the product streams the filter from memory once, and 8 chains keep up with it.
    @inline(__always)
    private func oneRow(columnGroup g: Int, blocks: Int, a: Rows, c: UnsafeMutablePointer<Float>, activation: (Float, Float)) {
        let blocksPerPanel = panelWidth / 8
        let first = g &* 8, count = min(8, blocks &- first)
        func block(_ j: Int) -> UnsafePointer<Float> {
            let b = first &+ min(j, count &- 1)
            return UnsafePointer(packed + ((b / blocksPerPanel) &* (k &+ 1) &* panelWidth &+ (b % blocksPerPanel) &* 8))
        }
        let w0 = block(0), w1 = block(1), w2 = block(2), w3 = block(3), w4 = block(4), w5 = block(5), w6 = block(6), w7 = block(7)
        var c0 = _mm256_loadu_ps(w0), c1 = _mm256_loadu_ps(w1), c2 = _mm256_loadu_ps(w2), c3 = _mm256_loadu_ps(w3)
        var c4 = _mm256_loadu_ps(w4), c5 = _mm256_loadu_ps(w5), c6 = _mm256_loadu_ps(w6), c7 = _mm256_loadu_ps(w7)
        let stride = panelWidth
        var o = stride
        for s in 0..<a.segments {
            let x = a.pointer(0, s)
            for i in 0..<a.segmentLength {
                let v = _mm256_set1_ps(x[i])
                c0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w0 + o), c0); c1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w1 + o), c1)
                c2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w2 + o), c2); c3 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w3 + o), c3)
                c4 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w4 + o), c4); c5 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w5 + o), c5)
                c6 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w6 + o), c6); c7 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w7 + o), c7)
                o &+= stride
            }
        }
        let low = _mm256_set1_ps(activation.0), high = _mm256_set1_ps(activation.1)
        func store(_ j: Int, _ v: __m256) {
            guard j < count else { return }
            let column = (first &+ j) &* 8
            storeFirst(min(8, n &- column), of: _mm256_min_ps(high, _mm256_max_ps(low, v)), at: c + column)
        }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3); store(4, c4); store(5, c5); store(6, c6); store(7, c7)
    }

    /// One row of A times a last panel narrower than the others (8, 16 or 24 columns: up to three AVX registers, a
    /// narrower panel computing its last block again), each an in-order chain of multiply-adds over k like
    /// ``oneRow(columnGroup:blocks:a:c:activation:)``'s.
    @inline(__always)
    private func lastPanelRow(a: Rows, c: UnsafeMutablePointer<Float>, activation: (Float, Float)) {
        let p = panels &- 1, stride = lastPanelWidth, column0 = p &* panelWidth
        let w = panelStart(p), second = min(8, stride &- 8), third = min(16, stride &- 8)
        var c0 = _mm256_loadu_ps(w), c1 = _mm256_loadu_ps(w + second), c2 = _mm256_loadu_ps(w + third)
        var o = stride
        for s in 0..<a.segments {
            let x = a.pointer(0, s)
            for i in 0..<a.segmentLength {
                let v = _mm256_set1_ps(x[i])
                c0 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + o), c0)
                c1 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + (o &+ second)), c1)
                c2 = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + (o &+ third)), c2)
                o &+= stride
            }
        }
        let low = _mm256_set1_ps(activation.0), high = _mm256_set1_ps(activation.1)
        for (offset, v) in [(0, c0), (8, c1), (16, c2)] where offset < stride && offset < n &- column0 {
            storeFirst(min(8, n &- column0 &- offset), of: _mm256_min_ps(high, _mm256_max_ps(low, v)), at: c + (column0 &+ offset))
        }
    }

    /// Stores the first `count` (1...8) lanes of v at o. Without `vmaskmovps`, which AMD's cores run as many
    /// micro-ops (a quarter of a 24-channel layer's time went to its masked stores): XNNPACK's 4-2-1 pieces.
    @inline(__always)
    private func storeFirst(_ count: Int, of v: __m256, at o: UnsafeMutablePointer<Float>) {
        if count >= 8 { _mm256_storeu_ps(o, v); return }
        var o = o, half = _mm256_castps256_ps128(v)
        if count & 4 != 0 {
            _mm_storeu_ps(o, half)
            half = _mm256_castps256_ps128(_mm256_permutevar8x32_ps(v, _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7)))
            o += 4
        }
        if count & 2 != 0 {
            _mm_storel_epi64(UnsafeMutableRawPointer(o).assumingMemoryBound(to: __m128i_u.self), _mm_castps_si128(half))
            half = _mm_movehl_ps(half, half)
            o += 2
        }
        if count & 1 != 0 { _mm_store_ss(o, half) }
    }

    #endif

    #if LITE_AVX2 && !LITE_AVX512_VNNI
    /// A panel with at most 8 real columns (a narrow layer, or the last panel of one whose width is not a multiple
    /// of 16) runs the 6x8 tile: the second register of a 6x16 one would only multiply the zero padding.
    @inline(__always)
    private func anyTile(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        let columns = min(panelWidth, n &- p &* panelWidth)
        if columns > 8 {
            tile6x16(t, panel: p, columns: columns, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        } else {
            tile6x8(t, panel: p, columns: columns, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        }
    }

    /// One 6x8 tile of C: the first 8 columns of panel p (of 8 or 16), one AVX register a row.
    @inline(__always)
    private func tile6x8(_ t: Int, panel p: Int, columns: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                         activation: (Float, Float)) {
        let first = t &* Self.tileRows, valid = min(Self.tileRows, rows &- first)
        let r0 = first, r1 = first &+ min(1, valid &- 1), r2 = first &+ min(2, valid &- 1), r3 = first &+ min(3, valid &- 1)
        let r4 = first &+ min(4, valid &- 1), r5 = first &+ min(5, valid &- 1)
        let stride = panelWidth
        var w = UnsafePointer(packed + p &* (k &+ 1) &* stride)
        let b = _mm256_loadu_ps(w)
        var c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b
        w += stride
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s)
            for i in 0..<a.segmentLength {
                let f = _mm256_loadu_ps(w)
                w += stride
                c0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[i]), f, c0)
                c1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[i]), f, c1)
                c2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[i]), f, c2)
                c3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[i]), f, c3)
                c4 = _mm256_fmadd_ps(_mm256_set1_ps(a4[i]), f, c4)
                c5 = _mm256_fmadd_ps(_mm256_set1_ps(a5[i]), f, c5)
            }
        }
        let low = _mm256_set1_ps(activation.0), high = _mm256_set1_ps(activation.1)
        let out = c + (first &* ldc &+ p &* stride)
        func store(_ r: Int, _ v: __m256) {
            guard r < valid else { return }
            storeFirst(columns, of: _mm256_min_ps(high, _mm256_max_ps(low, v)), at: out + r &* ldc)
        }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3); store(4, c4); store(5, c5)
    }

    /// One 6x16 tile of C in AVX registers (two a row). Rows past the end read the last row again and are not stored;
    /// columns past n are computed on the panel's zero padding and not stored.
    @inline(__always)
    private func tile6x16(_ t: Int, panel p: Int, columns: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
                          activation: (Float, Float)) {
        let first = t &* Self.tileRows, valid = min(Self.tileRows, rows &- first)
        let r0 = first, r1 = first &+ min(1, valid &- 1), r2 = first &+ min(2, valid &- 1), r3 = first &+ min(3, valid &- 1)
        let r4 = first &+ min(4, valid &- 1), r5 = first &+ min(5, valid &- 1)
        var w = UnsafePointer(packed + p &* (k &+ 1) &* 16)
        let b0 = _mm256_loadu_ps(w), b1 = _mm256_loadu_ps(w + 8)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        w += 16
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s)
            for i in 0..<a.segmentLength {
                let w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8)
                w += 16
                var x = _mm256_set1_ps(a0[i])
                c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01)
                x = _mm256_set1_ps(a1[i])
                c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11)
                x = _mm256_set1_ps(a2[i])
                c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21)
                x = _mm256_set1_ps(a3[i])
                c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31)
                x = _mm256_set1_ps(a4[i])
                c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41)
                x = _mm256_set1_ps(a5[i])
                c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51)
            }
        }
        // max(low, v) then min(high, v): with a NaN in v the instructions return v, so NaN passes through as in
        // the reference's `v < low ? low : v`.
        let low = _mm256_set1_ps(activation.0), high = _mm256_set1_ps(activation.1)
        let out = c + (first &* ldc &+ p &* 16)
        func store(_ r: Int, _ v0: __m256, _ v1: __m256) {
            guard r < valid else { return }
            let o = out + r &* ldc
            _mm256_storeu_ps(o, _mm256_min_ps(high, _mm256_max_ps(low, v0)))
            storeFirst(columns &- 8, of: _mm256_min_ps(high, _mm256_max_ps(low, v1)), at: o + 8)
        }
        store(0, c00, c01); store(1, c10, c11); store(2, c20, c21); store(3, c30, c31); store(4, c40, c41); store(5, c50, c51)
    }
    #endif

    #if LITE_AVX512_VNNI
    @inline(__always)
    private func anyTile(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        switch width(ofPanel: p) {
        case 8: tile8(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        case 16: tile16(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        case 24: tile24(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        default: tile(t, panel: p, a: a, rows: rows, c: c, ldc: ldc, activation: activation)
        }
    }

    /// One 8x32 tile of C. Rows past the end read the last row again (and are not stored), so every tile runs the
    /// same unrolled code; columns past n are computed on the panel's zero padding and masked out of the store.
    @inline(__always)
    private func tile(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        let first = t * Self.tileRows, valid = min(Self.tileRows, rows - first)
        let r0 = first, r1 = first + min(1, valid - 1), r2 = first + min(2, valid - 1), r3 = first + min(3, valid - 1)
        let r4 = first + min(4, valid - 1), r5 = first + min(5, valid - 1), r6 = first + min(6, valid - 1), r7 = first + min(7, valid - 1)
        var w = panelStart(p)
        let b0 = _mm512_loadu_ps(w), b1 = _mm512_loadu_ps(w + 16)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1
        var c40 = b0, c41 = b1, c50 = b0, c51 = b1, c60 = b0, c61 = b1, c70 = b0, c71 = b1
        w += 32
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s), a6 = a.pointer(r6, s), a7 = a.pointer(r7, s)
            for i in 0..<a.segmentLength {
                let w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16)
                w += 32
                var x = _mm512_set1_ps(a0[i])
                c00 = _mm512_fmadd_ps(x, w0, c00); c01 = _mm512_fmadd_ps(x, w1, c01)
                x = _mm512_set1_ps(a1[i])
                c10 = _mm512_fmadd_ps(x, w0, c10); c11 = _mm512_fmadd_ps(x, w1, c11)
                x = _mm512_set1_ps(a2[i])
                c20 = _mm512_fmadd_ps(x, w0, c20); c21 = _mm512_fmadd_ps(x, w1, c21)
                x = _mm512_set1_ps(a3[i])
                c30 = _mm512_fmadd_ps(x, w0, c30); c31 = _mm512_fmadd_ps(x, w1, c31)
                x = _mm512_set1_ps(a4[i])
                c40 = _mm512_fmadd_ps(x, w0, c40); c41 = _mm512_fmadd_ps(x, w1, c41)
                x = _mm512_set1_ps(a5[i])
                c50 = _mm512_fmadd_ps(x, w0, c50); c51 = _mm512_fmadd_ps(x, w1, c51)
                x = _mm512_set1_ps(a6[i])
                c60 = _mm512_fmadd_ps(x, w0, c60); c61 = _mm512_fmadd_ps(x, w1, c61)
                x = _mm512_set1_ps(a7[i])
                c70 = _mm512_fmadd_ps(x, w0, c70); c71 = _mm512_fmadd_ps(x, w1, c71)
            }
        }
        // max(low, v) then min(high, v): with a NaN in v the instructions return v, so NaN passes through as in
        // the reference's `v < low ? low : v`.
        let low = _mm512_set1_ps(activation.0), high = _mm512_set1_ps(activation.1)
        let column0 = p * panelWidth, columns = min(32, n - column0)
        let mask0 = __mmask16(truncatingIfNeeded: columns >= 16 ? 0xFFFF : (1 << columns) - 1)
        let mask1 = __mmask16(truncatingIfNeeded: columns >= 32 ? 0xFFFF : columns > 16 ? (1 << (columns - 16)) - 1 : 0)
        let out = c + first * ldc + column0
        func store(_ r: Int, _ v0: __m512, _ v1: __m512) {
            guard r < valid else { return }
            let o = out + r * ldc
            _mm512_mask_storeu_ps(o, mask0, _mm512_min_ps(high, _mm512_max_ps(low, v0)))
            _mm512_mask_storeu_ps(o + 16, mask1, _mm512_min_ps(high, _mm512_max_ps(low, v1)))
        }
        store(0, c00, c01); store(1, c10, c11); store(2, c20, c21); store(3, c30, c31)
        store(4, c40, c41); store(5, c50, c51); store(6, c60, c61); store(7, c70, c71)
    }

    /// One 8x24 tile of C (a last panel of 24): an AVX-512 and an AVX register a row, three quarters of the
    /// multiply-adds of an 8x32 tile on a layer of 24 channels.
    @inline(__always)
    private func tile24(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        let first = t * Self.tileRows, valid = min(Self.tileRows, rows - first)
        let r0 = first, r1 = first + min(1, valid - 1), r2 = first + min(2, valid - 1), r3 = first + min(3, valid - 1)
        let r4 = first + min(4, valid - 1), r5 = first + min(5, valid - 1), r6 = first + min(6, valid - 1), r7 = first + min(7, valid - 1)
        var w = panelStart(p)
        let b0 = _mm512_loadu_ps(w), b1 = _mm256_loadu_ps(w + 16)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1
        var c40 = b0, c41 = b1, c50 = b0, c51 = b1, c60 = b0, c61 = b1, c70 = b0, c71 = b1
        w += 24
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s), a6 = a.pointer(r6, s), a7 = a.pointer(r7, s)
            for i in 0..<a.segmentLength {
                let w0 = _mm512_loadu_ps(w), w1 = _mm256_loadu_ps(w + 16)
                w += 24
                var x = _mm512_set1_ps(a0[i])
                c00 = _mm512_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c01)
                x = _mm512_set1_ps(a1[i])
                c10 = _mm512_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c11)
                x = _mm512_set1_ps(a2[i])
                c20 = _mm512_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c21)
                x = _mm512_set1_ps(a3[i])
                c30 = _mm512_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c31)
                x = _mm512_set1_ps(a4[i])
                c40 = _mm512_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c41)
                x = _mm512_set1_ps(a5[i])
                c50 = _mm512_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c51)
                x = _mm512_set1_ps(a6[i])
                c60 = _mm512_fmadd_ps(x, w0, c60); c61 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c61)
                x = _mm512_set1_ps(a7[i])
                c70 = _mm512_fmadd_ps(x, w0, c70); c71 = _mm256_fmadd_ps(_mm512_castps512_ps256(x), w1, c71)
            }
        }
        let low = _mm512_set1_ps(activation.0), high = _mm512_set1_ps(activation.1)
        let low8 = _mm256_set1_ps(activation.0), high8 = _mm256_set1_ps(activation.1)
        let column0 = p * panelWidth, columns = min(24, n - column0)
        let mask0 = __mmask16(truncatingIfNeeded: columns >= 16 ? 0xFFFF : (1 << columns) - 1)
        let mask1 = __mmask8(truncatingIfNeeded: columns >= 24 ? 0xFF : columns > 16 ? (1 << (columns - 16)) - 1 : 0)
        let out = c + first * ldc + column0
        func store(_ r: Int, _ v0: __m512, _ v1: __m256) {
            guard r < valid else { return }
            let o = out + r * ldc
            _mm512_mask_storeu_ps(o, mask0, _mm512_min_ps(high, _mm512_max_ps(low, v0)))
            _mm256_mask_storeu_ps(o + 16, mask1, _mm256_min_ps(high8, _mm256_max_ps(low8, v1)))
        }
        store(0, c00, c01); store(1, c10, c11); store(2, c20, c21); store(3, c30, c31)
        store(4, c40, c41); store(5, c50, c51); store(6, c60, c61); store(7, c70, c71)
    }

    /// One 8x16 tile of C (panels of 16): as ``tile(_:panel:a:lda:rows:c:ldc:activation:)`` with one register a row.
    @inline(__always)
    private func tile16(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        let first = t * Self.tileRows, valid = min(Self.tileRows, rows - first)
        let r0 = first, r1 = first + min(1, valid - 1), r2 = first + min(2, valid - 1), r3 = first + min(3, valid - 1)
        let r4 = first + min(4, valid - 1), r5 = first + min(5, valid - 1), r6 = first + min(6, valid - 1), r7 = first + min(7, valid - 1)
        var w = panelStart(p)
        let b = _mm512_loadu_ps(w)
        var c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b
        w += 16
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s), a6 = a.pointer(r6, s), a7 = a.pointer(r7, s)
            for i in 0..<a.segmentLength {
                let f = _mm512_loadu_ps(w)
                w += 16
                c0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[i]), f, c0)
                c1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[i]), f, c1)
                c2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[i]), f, c2)
                c3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[i]), f, c3)
                c4 = _mm512_fmadd_ps(_mm512_set1_ps(a4[i]), f, c4)
                c5 = _mm512_fmadd_ps(_mm512_set1_ps(a5[i]), f, c5)
                c6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[i]), f, c6)
                c7 = _mm512_fmadd_ps(_mm512_set1_ps(a7[i]), f, c7)
            }
        }
        let low = _mm512_set1_ps(activation.0), high = _mm512_set1_ps(activation.1)
        let column0 = p * panelWidth, columns = min(16, n - column0)
        let mask = __mmask16(truncatingIfNeeded: columns >= 16 ? 0xFFFF : (1 << columns) - 1)
        let out = c + first * ldc + column0
        func store(_ r: Int, _ v: __m512) {
            guard r < valid else { return }
            _mm512_mask_storeu_ps(out + r * ldc, mask, _mm512_min_ps(high, _mm512_max_ps(low, v)))
        }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3); store(4, c4); store(5, c5); store(6, c6); store(7, c7)
    }

    /// One 8x8 tile of C (panels of 8), in AVX registers: half the width of an AVX-512 one, and on CPUs that run
    /// AVX-512 multiply-adds as two halves, twice as many of them a cycle.
    @inline(__always)
    private func tile8(_ t: Int, panel p: Int, a: Rows, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float)) {
        let first = t * Self.tileRows, valid = min(Self.tileRows, rows - first)
        let r0 = first, r1 = first + min(1, valid - 1), r2 = first + min(2, valid - 1), r3 = first + min(3, valid - 1)
        let r4 = first + min(4, valid - 1), r5 = first + min(5, valid - 1), r6 = first + min(6, valid - 1), r7 = first + min(7, valid - 1)
        var w = panelStart(p)
        let b = _mm256_loadu_ps(w)
        var c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b
        w += 8
        for s in 0..<a.segments {
            let a0 = a.pointer(r0, s), a1 = a.pointer(r1, s), a2 = a.pointer(r2, s), a3 = a.pointer(r3, s)
            let a4 = a.pointer(r4, s), a5 = a.pointer(r5, s), a6 = a.pointer(r6, s), a7 = a.pointer(r7, s)
            for i in 0..<a.segmentLength {
                let f = _mm256_loadu_ps(w)
                w += 8
                c0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[i]), f, c0)
                c1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[i]), f, c1)
                c2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[i]), f, c2)
                c3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[i]), f, c3)
                c4 = _mm256_fmadd_ps(_mm256_set1_ps(a4[i]), f, c4)
                c5 = _mm256_fmadd_ps(_mm256_set1_ps(a5[i]), f, c5)
                c6 = _mm256_fmadd_ps(_mm256_set1_ps(a6[i]), f, c6)
                c7 = _mm256_fmadd_ps(_mm256_set1_ps(a7[i]), f, c7)
            }
        }
        let low = _mm256_set1_ps(activation.0), high = _mm256_set1_ps(activation.1)
        let column0 = p * panelWidth, columns = min(8, n - column0)
        let mask = __mmask8(truncatingIfNeeded: columns >= 8 ? 0xFF : (1 << columns) - 1)
        let out = c + first * ldc + column0
        func store(_ r: Int, _ v: __m256) {
            guard r < valid else { return }
            _mm256_mask_storeu_ps(out + r * ldc, mask, _mm256_min_ps(high, _mm256_max_ps(low, v)))
        }
        store(0, c0); store(1, c1); store(2, c2); store(3, c3); store(4, c4); store(5, c5); store(6, c6); store(7, c7)
    }
    #endif
}
