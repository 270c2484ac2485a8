import CLiteKernels

/// The float convolution's matrix product `C = clamp(A · Fᵀ + bias)` with the filter F ([n, k], row-major, one
/// row per output channel) packed once at load, in the way XNNPACK's f32 GEMM microkernels read it: panels of 32
/// output channels, each panel k rows of 32 filter values with the panel's bias in front, zero-padded past n.
/// At the AVX-512 levels the microkernel keeps an 8-row by 32-column tile of C in 16 AVX-512 registers, broadcasts one value of each of
/// the 8 rows of A per step of k and adds the bias and the activation before the single store, so neither A nor C is
/// copied and there is no second pass. OpenBLAS's sgemm packs A and F on every call, which costs most on the small
/// layers (MobileNetV1 0.25, the face detector).
///
/// At AVX-512 levels, layers with at most 16 output channels use panels of 16 (one AVX-512 register a row), and with at most 8
/// panels of 8 (one AVX register a row): a first layer with 8 output channels (MobileNetV1 0.25) computed three
/// quarters of a 32-wide tile on zero padding, a large share of the model's time. For the same reason the last
/// panel of a wider layer is only as wide as it needs to be, 8, 16, 24 or 32 (an 8x24 tile is an AVX-512 and an
/// AVX register a row).
///
/// Rows go in tiles of 8 (6 at avx2), or of 7 where 7 divides the rows and 8 does not (the 7x7 and 14x14 maps of
/// 224-pixel models); one or two rows left after the last whole tile take the one-row path (see below) rather
/// than a tile that would compute its first row eight times. Each tile runs through every panel; with more than one
/// thread the tiles are shared out (or, for some large filters, the panels: see `tiling`).
///
/// At the avx2 level (no AVX-512) panels are of 16 with a 6x16 tile in 12 AVX registers (XNNPACK's AVX2 shape),
/// or for layers of at most 8 output channels panels of 8 and a 6x8 tile (also for a last panel with at most 8 real
/// columns); partial columns are stored in pieces, not with `vmaskmovps`. A product with one row of A (a
/// classifier's last layer) streams the filter through 64 columns of registers instead, at either level.
///
/// The tiles are C microkernels (`lite_f32_gemm_*` in CLiteKernels) chosen by ``KernelConfiguration/float``: only at
/// the avx2 level and above; at baseline (or on other architectures) ``make(filter:n:k:bias:)`` returns nil and the
/// convolution calls sgemm. The sums run over k in order for every output, as the reference convolution does, but
/// with fused multiply-adds, so results differ from sgemm's in the last bits.
final class PackedFilterGEMM: @unchecked Sendable {
    /// The level's tile kernels and their shape.
    private let kernels: KernelConfiguration.FloatKernels
    /// How `rows` rows are tiled and shared out: the tile kernel (and its form with a store epilogue, where the level
    /// has one), its tile height, and whether threads split the panels rather than the row tiles.
    private struct Tiling {
        let kernel: lite_f32_gemm_tiles_fn
        let storing: lite_f32_gemm_tiles_storing_fn?
        let rows: Int
        let splitsPanels: Bool
    }

    /// The level's tiles, or at AVX-512 levels 7-row tiles when 7 divides the rows and 8 does not (maps of 7x7 and
    /// 14x14 pixels: 49 rows were six tiles and a row that streamed the whole filter once more, 196 rows 24 tiles and
    /// a half-empty one), if the threads can share them evenly: by row tiles, or else by panels (a 7x7 map's seven
    /// tiles went four and three at two threads, slower than six tiles and a row; its layers' 10, 30 or 40 panels
    /// split evenly, their 5 do not). Likewise a layer with a filter of 512 KB or more whose row tiles leave a thread
    /// idle for more than a twentieth of it shares its panels instead when they split evenly, each thread then reading
    /// half of the filter (an SSD head's 5x5 map, three tiles of a 2.6 MB filter, went two and one: 1.36x XNNPACK's
    /// time at 2 threads, 0.81x of that split by panels); smaller filters keep their rows (a face mesh's 6x6 layers of
    /// 64 KB filters, five tiles, ran slower by panels). Split by panels, a thread stores parts of rows, so an epilogue
    /// that runs on whole stored rows (an epilogue without an in-register form for the tile) rules that out, except on
    /// maps of fewer tiles than two a thread (4x4 and 2x2 pixels), whose panels are shared whatever their filter and
    /// whose few stored rows the epilogue then reads once all are stored.
    private func tiling(rows: Int, threads: Int, epilogue: Epilogue?) -> Tiling {
        let threads = max(threads, 1)
        // Whether a tile kernel (by its storing form) would leave the epilogue to run on the rows it stored.
        func runsOnStoredRows(_ storing: lite_f32_gemm_tiles_storing_fn?) -> Bool {
            epilogue != nil && (storing == nil || epilogue?.inRegisters == nil)
        }
        let level = Tiling(kernel: kernels.gemmTiles, storing: kernels.gemmTilesStoring, rows: kernels.gemmTileRows, splitsPanels: false)
        if let seven = kernels.gemmTiles7, rows % kernels.gemmTileRows != 0, rows % 7 == 0 {
            let sevens = Tiling(kernel: seven, storing: kernels.gemmTiles7Storing, rows: 7, splitsPanels: false)
            if (rows / 7) % threads == 0 { return sevens }
            if panels % threads == 0 && !runsOnStoredRows(sevens.storing) {
                return Tiling(kernel: seven, storing: sevens.storing, rows: 7, splitsPanels: true)
            }
        }
        let tiles = (rows - Self.singleRows(rows, tileRows: level.rows) + level.rows - 1) / level.rows
        let busiest = (tiles + threads - 1) / threads
        guard threads > 1 && panels % threads == 0 && busiest * threads * 20 > tiles * 21 else { return level }
        let largeFilter = !runsOnStoredRows(level.storing) && saturatingProduct(n, k, 4) >= 512 << 10
        // A map of a few rows (4x4 or 2x2 pixels: one to three tiles), which rows cannot share out: its panels are
        // shared, and an epilogue on stored rows runs on the caller once all are stored (a few KB).
        let fewRows = tiles < 2 * threads
        guard largeFilter || fewRows else { return level }
        return Tiling(kernel: level.kernel, storing: level.storing, rows: level.rows, splitsPanels: true)
    }

    /// Rows past the last whole tile that run as single rows (each streams the filter once, at about half a tile's
    /// rate) rather than as a tile that computes all of its rows for them: one or two (all of them when there is one).
    /// A 7x7 layer's 49 rows are six tiles of eight and one row, not seven tiles of which the last computes the same
    /// row eight times.
    private static func singleRows(_ rows: Int, tileRows: Int) -> Int {
        let leftOver = rows % tileRows
        return rows == 1 ? 1 : leftOver <= 2 ? leftOver : 0
    }

    let n: Int, k: Int
    /// Output channels per panel: 16 or 32, or 8 (or 16) for narrow layers.
    let panelWidth: Int
    /// The last panel's width: at AVX-512 levels the narrowest of 8, 16, 24 and 32 that holds the columns left over, so
    /// a layer of 24 (or 36, 42, 72) channels does not multiply 8 (or 28, 22, 24) columns of zero padding at every step.
    let lastPanelWidth: Int
    private let panels: Int
    /// Panel p at `packed + p · (k + 1) · panelWidth`: its width in biases, then k rows of that many filter values;
    /// 64-byte aligned.
    private let packed: UnsafeMutablePointer<Float>
    /// The same layout as the microkernels read it.
    private let filter: lite_f32_packed_filter

    private init(filter: UnsafePointer<Float>, n: Int, k: Int, bias: UnsafePointer<Float>?, kernels: KernelConfiguration.FloatKernels) {
        self.kernels = kernels
        self.n = n
        self.k = k
        let widest = kernels.gemmPanelWidth
        let panelWidth = n <= 8 ? 8 : n <= 16 || widest == 16 ? 16 : 32
        let panels = (n + panelWidth - 1) / panelWidth
        let leftOver = n - (panels - 1) * panelWidth
        let lastPanelWidth = kernels.gemmNarrowLastPanel ? min((leftOver + 7) / 8 * 8, panelWidth) : panelWidth
        let count = (panels - 1) * (k + 1) * panelWidth + (k + 1) * lastPanelWidth
        let packed = allocateAligned(Float.self, count: count)
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
        self.panelWidth = panelWidth
        self.panels = panels
        self.lastPanelWidth = lastPanelWidth
        self.packed = packed
        self.filter = lite_f32_packed_filter(packed: UnsafePointer(packed), n: n, k: k, panel_width: panelWidth,
                                             last_panel_width: lastPanelWidth, panels: panels)
    }

    deinit { deallocateAligned(packed) }

    /// The packed product for this filter, or nil where the configuration has no float GEMM kernels (baseline) or for
    /// shapes it does not take.
    static func make(filter: UnsafePointer<Float>, n: Int, k: Int, bias: UnsafePointer<Float>?) -> PackedFilterGEMM? {
        guard let kernels = KernelConfiguration.current.float else { return nil }
        guard n > 0, k > 0, saturatingProduct(n + 32, k + 1) < 1 << 28 else { return nil }
        return PackedFilterGEMM(filter: filter, n: n, k: k, bias: bias, kernels: kernels)
    }

    /// Where the microkernels read the rows of A: each row is `segments` pieces of `segmentLength` consecutive
    /// values (together k), found at `indirection[row · segments + s]` (a convolution read in place: one piece per
    /// filter row, XNNPACK's indirect GEMM), or one piece at `a + row · lda`.
    struct Rows {
        let a: UnsafePointer<Float>, lda: Int
        let indirection: UnsafePointer<UnsafePointer<Float>>?
        let segments: Int, segmentLength: Int

        /// The same description for the microkernels.
        var layout: lite_f32_gemm_rows {
            lite_f32_gemm_rows(a: a, lda: lda,
                               indirection: indirection.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<Float>?.self) },
                               segments: segments, segment_length: segmentLength)
        }
    }

    /// What runs on the values of C as they are computed: the nodes folded into a convolution's store
    /// (``StoreEpilogueAbsorbing``), in two forms of the same arithmetic.
    struct Epilogue {
        /// The steps on a range of rows of C once they are stored, while they are still in cache: called with each
        /// range exactly once, after every panel of its rows is stored; from the thread that computed them, except
        /// for a few-row map whose panels the threads shared (run on the caller after all). For the one-row kernel,
        /// and tile kernels without a storing form (avx2).
        let onStoredRows: (Range<Int>) -> Void
        /// The steps for the tile kernels that apply them in registers, between the clamp and the store (AVX-512
        /// levels); nil when there are more steps than they hold.
        let inRegisters: lite_f32_store_epilogue?
    }

    /// `c[r, 0..<n] = clamp(a[r, 0..<k] · Fᵀ + bias, low, high)` for `r` in `0..<rows`, then `epilogue` on them.
    func run(a: UnsafePointer<Float>, lda: Int, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
             activation: (Float, Float), threads: Int, epilogue: Epilogue? = nil) {
        run(Rows(a: a, lda: lda, indirection: nil, segments: 1, segmentLength: k), count: rows, c: c, ldc: ldc, activation: activation, threads: threads,
            epilogue: epilogue)
    }

    /// The same product with row r of A the `segments` pieces of `k / segments` values at
    /// `indirection[r · segments ..< (r + 1) · segments]`.
    func run(indirection: UnsafePointer<UnsafePointer<Float>>, segments: Int, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
             activation: (Float, Float), threads: Int, epilogue: Epilogue? = nil) {
        precondition(segments > 0 && k % segments == 0, "the pieces of a row must add up to k")
        guard rows > 0 else { return }
        run(Rows(a: indirection[0], lda: 0, indirection: indirection, segments: segments, segmentLength: k / segments), count: rows,
            c: c, ldc: ldc, activation: activation, threads: threads, epilogue: epilogue)
    }

    private func run(_ a: Rows, count rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float), threads: Int,
                     epilogue: Epilogue?) {
        guard rows > 0 else { return }
        let tiling = tiling(rows: rows, threads: threads, epilogue: epilogue)
        let tiledRows = rows - Self.singleRows(rows, tileRows: tiling.rows)
        withUnsafePointer(to: filter) { filter in
            withUnsafePointer(to: a.layout) { a in
                if tiledRows > 0 {
                    runTiles(filter, a, count: tiledRows, tiling: tiling, c: c, ldc: ldc, activation: activation, threads: threads,
                             epilogue: epilogue)
                }
                for r in tiledRows..<rows {
                    runSingleRow(filter, a, row: r, c: c + r * ldc, activation: activation, threads: threads)
                    epilogue?.onStoredRows(r..<r + 1)
                }
            }
        }
    }

    /// One row of A times all of F: groups of 64 columns over the panels of full width; a narrower last panel is one
    /// item more.
    private func runSingleRow(_ filter: UnsafePointer<lite_f32_packed_filter>, _ a: UnsafePointer<lite_f32_gemm_rows>, row: Int,
                              c: UnsafeMutablePointer<Float>, activation: (Float, Float), threads: Int) {
        let narrowLast = lastPanelWidth < panelWidth
        let fullBlocks = narrowLast ? (panels - 1) * (panelWidth / 8) : (n + 7) / 8
        let groups = (fullBlocks + 7) / 8
        let kernel = kernels.gemmRow
        parallelFor(groups + (narrowLast ? 1 : 0), threads: threads, workPerItem: 64 * k) { groupRange in
            for g in groupRange { kernel(filter, a, row, g, fullBlocks, c, activation.0, activation.1) }
        }
    }

    /// Bytes of output computed before an epilogue on stored rows runs on them: 16 KB stays in L1 for the epilogue to
    /// read back, and each group costs one call of the product and one of each step, so groups are no smaller.
    private static let epilogueBytes = 16 << 10

    /// `rows` rows of A in tiles of `tiling.rows` (the last tile may be partial), with the epilogue's steps in the
    /// tiles' registers where the tiling has a storing kernel, else on each group of rows they stored.
    private func runTiles(_ filter: UnsafePointer<lite_f32_packed_filter>, _ a: UnsafePointer<lite_f32_gemm_rows>, count rows: Int,
                          tiling: Tiling, c: UnsafeMutablePointer<Float>, ldc: Int, activation: (Float, Float), threads: Int,
                          epilogue: Epilogue?) {
        let (low, high) = activation
        if let epilogue, let storing = tiling.storing, let steps = epilogue.inRegisters {
            withUnsafePointer(to: steps) { steps in
                runTiles(count: rows, tiling: tiling, threads: threads, storedRows: nil) { tiles, panels in
                    storing(filter, a, rows, tiles.lowerBound, tiles.upperBound, panels.lowerBound, panels.upperBound, c, ldc, low, high, steps)
                }
            }
        } else {
            let kernel = tiling.kernel
            runTiles(count: rows, tiling: tiling, threads: threads, storedRows: epilogue?.onStoredRows) { tiles, panels in
                kernel(filter, a, rows, tiles.lowerBound, tiles.upperBound, panels.lowerBound, panels.upperBound, c, ldc, low, high)
            }
        }
    }

    /// Shares out `product(tiles, panels)` over the row tiles (or the panels) of `rows` rows, with `storedRows` run
    /// on each group of rows once they are stored.
    private func runTiles(count rows: Int, tiling: Tiling, threads: Int, storedRows: ((Range<Int>) -> Void)?,
                          product: (Range<Int>, Range<Int>) -> Void) {
        let tileRows = tiling.rows
        let tiles = (rows + tileRows - 1) / tileRows
        let panelWork = tileRows * panelWidth * k
        let panels = self.panels
        if tiling.splitsPanels {
            // A thread stores parts of rows, so an epilogue on stored rows waits for all of them (`tiling` shares the
            // panels of such a layer only when its rows are few).
            parallelFor(panels, threads: threads, workPerItem: saturatingProduct(tiles, panelWork)) { panelRange in
                product(0..<tiles, panelRange)
            }
            storedRows?(0..<rows)
        } else {
            // The filter stays in cache while each row tile of the input is read once. Threads split the rows, also
            // when the filter is the larger operand: split by panels, a 160-channel layer's five panels went three to
            // one thread and two to the other, and the 7x7 depthwise layers after MobileNetV2's 960-channel ones (split
            // by rows, as every op is) read half of their input from the other core's cache, and ran slower at 2
            // threads than at 1. On one thread too: running each panel through every row tile instead (each panel read
            // from memory once) was slower in the graph on the 7x7 layers, whose filters arrive from memory after the
            // rest of the model has gone through the caches; a sequential pass over the whole filter a tile suits the
            // hardware prefetchers.
            parallelFor(tiles, threads: threads, workPerItem: saturatingProduct(panels, panelWork)) { tileRange in
                // One call for the whole range: a call per tile cost a tenth of a small layer's time.
                guard let storedRows else { return product(tileRange, 0..<panels) }
                // With an epilogue on stored rows, `epilogueBytes` of rows a call, each group read by the epilogue
                // right after the product wrote it.
                let groupTiles = max(1, Self.epilogueBytes / max(tileRows * n * MemoryLayout<Float>.size, 1))
                for start in stride(from: tileRange.lowerBound, to: tileRange.upperBound, by: groupTiles) {
                    let end = min(start + groupTiles, tileRange.upperBound)
                    product(start..<end, 0..<panels)
                    storedRows(start * tileRows..<min(end * tileRows, rows))
                }
            }
        }
    }
}
