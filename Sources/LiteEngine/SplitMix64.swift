/// A small, fast, seedable generator (Steele et al.'s SplitMix64): the same sequence for the same seed, and no system
/// call per value. For reproducible inputs: the benchmark's random tensors and the fuzzers' mutations.
public struct SplitMix64: RandomNumberGenerator {
    /// The generator's state; the next value depends only on it.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
