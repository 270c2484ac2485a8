@testable import LiteEngine

/// Whether the tests (and the `vision-cli` built beside them) run under AddressSanitizer or ThreadSanitizer
/// (tools/sanitize.sh), for the tests whose bounds measure the uninstrumented build.
enum SanitizedBuild {
    /// True when a sanitizer runtime is linked into this process.
    static let isActive = BLAS.sanitizerRuntimeLinked

    /// The factor applied to wall-time and peak-memory bounds. AddressSanitizer checks every access and keeps
    /// shadow memory, redzones around each allocation and a quarantine of freed memory (256 MB by default): a
    /// `vision-cli` child peaked at nearly 9 times the uninstrumented build's memory (a batch line of a million
    /// points: 685 MB against 78 MB), and a mutated model that runs well under the fuzz tests' 5 s took 6.6 s.
    static let boundFactor = isActive ? 5 : 1
}
