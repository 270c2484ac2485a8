import COpenBLAS
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// OpenBLAS, loaded at first use.
///
/// Debian's OpenBLAS is built with DYNAMIC_ARCH and picks its kernels in a library constructor from
/// `OPENBLAS_CORETYPE` or its own CPU detection, which does not know recent CPUs and falls back to slow
/// kernels (ENGINEERING.md §1; Docs/architecture.md). The choice cannot be changed once the
/// library is loaded, so the engine does not link OpenBLAS: it sets `OPENBLAS_CORETYPE` from the CPU's
/// features (or from `LITEVISION_BLAS_CORETYPE` when set) and only then `dlopen`s the library.
public enum BLAS {
    typealias SgemmFunction = @convention(c) (
        CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, Int32, Int32, Int32,
        Float, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32,
        Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias DgemmFunction = @convention(c) (
        CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, Int32, Int32, Int32,
        Double, UnsafePointer<Double>?, Int32, UnsafePointer<Double>?, Int32,
        Double, UnsafeMutablePointer<Double>?, Int32
    ) -> Void
    typealias SetThreadsFunction = @convention(c) (Int32) -> Void
    typealias CorenameFunction = @convention(c) () -> UnsafeMutablePointer<CChar>?

    typealias SgemvFunction = @convention(c) (
        CBLAS_ORDER, CBLAS_TRANSPOSE, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
        UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    struct Library: @unchecked Sendable {
        let sgemm: SgemmFunction
        let sgemv: SgemvFunction
        let dgemm: DgemmFunction
        let corename: String
    }

    /// The library, or why it could not be loaded. Loaded once, at the first model load.
    static let loaded: Result<Library, EngineError> = load()

    /// Throws ``EngineError/libraryUnavailable(library:package:reason:)`` when OpenBLAS cannot be loaded. Every
    /// ``Interpreter`` calls it before preparing a kernel, so kernels can use `library` unconditionally.
    public static func requireLoaded() throws {
        if case let .failure(error) = loaded { throw error }
    }

    /// The loaded library; only reached by kernels of an interpreter whose initializer called ``requireLoaded()``.
    static var library: Library {
        switch loaded {
        case let .success(library): return library
        case let .failure(error): preconditionFailure("BLAS used without requireLoaded(): \(error)")
        }
    }

    /// The OpenBLAS kernel family in use ("SkylakeX", "Haswell", ...).
    public static var coreName: String { (try? loaded.get())?.corename ?? "unavailable" }

    /// The kernel family this CPU should use, from the engine's own CPU probe (``InstructionSetLevel/detected``:
    /// cpuid and the registers the OS saves); nil when OpenBLAS's own choice is fine.
    static func preferredCoreType() -> String? {
        switch InstructionSetLevel.detected {
        case .avx512, .avx512vnni: return "SkylakeX"
        case .avx2: return "Haswell"
        case .baseline: return nil
        }
    }

    /// The Debian package whose library `load()` opens.
    static let package = "libopenblas0 (or libopenblas-dev)"

    /// The `dlopen` flags for OpenBLAS. DYNAMIC_ARCH OpenBLAS binds about 12,000 symbols of its own (the kernel
    /// tables of every CPU family) when it is opened. Looked up in the global scope first, each one walks the ~50
    /// libraries a Swift program with Foundation has loaded before reaching OpenBLAS, a noticeable part of a one-shot
    /// process; its own scope first (`RTLD_DEEPBIND`, Linux) finds them at once. Lazy binding leaves the functions
    /// never called unbound. The sanitizers' runtimes end the process at a `dlopen` with `RTLD_DEEPBIND`
    /// (google/sanitizers#611), so it is left out when one is linked in, and when `LITEVISION_BLAS_DEEPBIND=0`.
    static func openFlags(deepBindDisabled: Bool, sanitizerLinked: Bool) -> Int32 {
        #if os(Linux)
        deepBindDisabled || sanitizerLinked ? RTLD_LAZY | RTLD_LOCAL : RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND
        #else
        RTLD_LAZY | RTLD_LOCAL
        #endif
    }

    /// Whether a sanitizer runtime (Address, Thread, Memory or HWAddress) is linked into this process: each exports
    /// its initializer. Not an environment variable, which a parent can drop (PySpark's `RDD.pipe` runs its command
    /// with an empty environment).
    static let sanitizerRuntimeLinked: Bool = {
        #if os(Linux)
        let initializers: [String] = ["__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"]
        return initializers.contains { dlsym(nil, $0) != nil }
        #else
        false
        #endif
    }()

    private static func load() -> Result<Library, EngineError> {
        // An explicit LITEVISION_BLAS_CORETYPE wins; otherwise the CPU decides. A pre-set OPENBLAS_CORETYPE is
        // overridden on purpose: images and CI machines set it to conservative families (Haswell, Prescott)
        // whose kernels run convolutions far slower on AVX-512 CPUs.
        if let forced = getenv("LITEVISION_BLAS_CORETYPE") {
            setenv("OPENBLAS_CORETYPE", forced, 1)
        } else if let core = preferredCoreType() {
            setenv("OPENBLAS_CORETYPE", core, 1)
        } else {
            // A CPU without AVX2: an inherited family (a parent process of ours on another machine, a container
            // image's default) could name kernels this CPU cannot run; OpenBLAS's own detection is safe.
            unsetenv("OPENBLAS_CORETYPE")
        }
        setenv("OPENBLAS_NUM_THREADS", "1", 1)
        // LITEVISION_OPENBLAS names the library file to open instead (a custom build, or a test of the missing case).
        let names = getenv("LITEVISION_OPENBLAS").map { [String(cString: $0)] } ?? ["libopenblas.so.0", "libopenblas.so", "libopenblas.dylib"]
        let flags = openFlags(deepBindDisabled: getenv("LITEVISION_BLAS_DEEPBIND").map { String(cString: $0) } == "0",
                              sanitizerLinked: sanitizerRuntimeLinked)
        guard let handle = names.lazy.compactMap({ dlopen($0, flags) }).first else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.libraryUnavailable(library: "OpenBLAS", package: package, reason: reason))
        }
        guard let sgemm = dlsym(handle, "cblas_sgemm"), let sgemv = dlsym(handle, "cblas_sgemv"), let dgemm = dlsym(handle, "cblas_dgemm") else {
            return .failure(.libraryUnavailable(library: "OpenBLAS", package: package, reason: "the library has no cblas_sgemm/sgemv/dgemm"))
        }
        // OpenBLAS computes on the calling thread only; the engine splits the rows across its own workers.
        if let setThreads = dlsym(handle, "openblas_set_num_threads") { unsafeBitCast(setThreads, to: SetThreadsFunction.self)(1) }
        var corename = "unknown"
        if let symbol = dlsym(handle, "openblas_get_corename"),
           let name = unsafeBitCast(symbol, to: CorenameFunction.self)() {
            corename = String(cString: name)
        }
        return .success(Library(sgemm: unsafeBitCast(sgemm, to: SgemmFunction.self), sgemv: unsafeBitCast(sgemv, to: SgemvFunction.self),
                                dgemm: unsafeBitCast(dgemm, to: DgemmFunction.self), corename: corename))
    }

    /// Row-major `C = alpha * op(A) * op(B) + beta * C` with `op(A)` M x K and `op(B)` K x N.
    /// OpenBLAS itself runs one thread; with more, the rows are split across the engine's workers (Parallel.swift),
    /// each calling a one-thread sgemm, so that OpenBLAS's spinning threads and the workers do not fight over the cores.
    @inline(__always)
    static func sgemm(transposeA: Bool = false, transposeB: Bool, m: Int, n: Int, k: Int,
                      a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
                      beta: Float = 0, c: UnsafeMutablePointer<Float>, ldc: Int, threads: Int) {
        let lib = library
        parallelFor(m, threads: threads, minimumChunk: 16, workPerItem: n * k) { rows in
            lib.sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                      Int32(rows.count), Int32(n), Int32(k), 1, a + (transposeA ? rows.lowerBound : rows.lowerBound * lda), Int32(lda),
                      b, Int32(ldb), beta, c + rows.lowerBound * ldc, Int32(ldc))
        }
    }

    /// Row-major `y = A · x + y` with A M x N.
    @inline(__always)
    static func sgemvAccumulate(m: Int, n: Int, a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,
                                threads: Int) {
        let lib = library
        parallelFor(m, threads: threads, minimumChunk: 16, workPerItem: n) { rows in
            lib.sgemv(CblasRowMajor, CblasNoTrans, Int32(rows.count), Int32(n), 1, a + rows.lowerBound * lda, Int32(lda), x, 1, 1, y + rows.lowerBound, 1)
        }
    }

    /// Row-major double `C = op(A) · op(B)` with `op(A)` M x K and `op(B)` K x N, rows split over the workers like
    /// ``sgemm(transposeA:transposeB:m:n:k:a:lda:b:ldb:beta:c:ldc:threads:)``.
    @inline(__always)
    static func dgemm(transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, a: UnsafePointer<Double>, lda: Int,
                      b: UnsafePointer<Double>, ldb: Int, c: UnsafeMutablePointer<Double>, ldc: Int, threads: Int) {
        let lib = library
        parallelFor(m, threads: threads, minimumChunk: 16, workPerItem: n * k) { rows in
            lib.dgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                      Int32(rows.count), Int32(n), Int32(k), 1, a + (transposeA ? rows.lowerBound : rows.lowerBound * lda), Int32(lda),
                      b, Int32(ldb), 0, c + rows.lowerBound * ldc, Int32(ldc))
        }
    }

    /// Row-major double `C = A · Bᵀ`. Quantized kernels use it for exact integer dot products: every product
    /// of two 8-bit values and every partial sum below 2^53 is represented exactly, so the result equals the
    /// int32 accumulation of TFLite's kernels.
    @inline(__always)
    static func dgemmTransposedB(m: Int, n: Int, k: Int, a: UnsafePointer<Double>, b: UnsafePointer<Double>,
                                 c: UnsafeMutablePointer<Double>, threads: Int) {
        let lib = library
        parallelFor(m, threads: threads, minimumChunk: 16, workPerItem: n * k) { rows in
            lib.dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows.count), Int32(n), Int32(k), 1, a + rows.lowerBound * k, Int32(k), b, Int32(k), 0,
                      c + rows.lowerBound * n, Int32(n))
        }
    }
}
