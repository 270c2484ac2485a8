import Foundation
import LiteFormat

/// Philox-4x32-10 (Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3"), the counter-based generator
/// behind TensorFlow's and TFLite's random ops: a 128-bit counter run through ten rounds keyed by the 64-bit seed
/// gives four 32-bit values, then the counter steps by one. Same seeds, same stream as TensorFlow's `PhiloxRandom`.
struct Philox {
    private(set) var counter: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    private(set) var key: (UInt32, UInt32)

    /// `seed` keys the rounds; `streamSeed` sets the counter's upper half (TensorFlow's `PhiloxRandom(seed_lo, seed_hi)`).
    init(seed: UInt64, streamSeed: UInt64) {
        key = (UInt32(truncatingIfNeeded: seed), UInt32(truncatingIfNeeded: seed >> 32))
        counter.2 = UInt32(truncatingIfNeeded: streamSeed)
        counter.3 = UInt32(truncatingIfNeeded: streamSeed >> 32)
    }

    /// The next four values.
    mutating func next() -> (UInt32, UInt32, UInt32, UInt32) {
        var c = counter, k = key
        for round in 0..<10 {
            let p0 = UInt64(0xD251_1F53) &* UInt64(c.0), p1 = UInt64(0xCD9E_8D57) &* UInt64(c.2)
            c = (UInt32(truncatingIfNeeded: p1 >> 32) ^ c.1 ^ k.0, UInt32(truncatingIfNeeded: p1),
                 UInt32(truncatingIfNeeded: p0 >> 32) ^ c.3 ^ k.1, UInt32(truncatingIfNeeded: p0))
            if round < 9 { k = (k.0 &+ 0x9E37_79B9, k.1 &+ 0xBB67_AE85) }
        }
        skip(1)
        return c
    }

    /// Moves the counter `count` blocks of four values ahead (the carry runs through all 128 bits).
    mutating func skip(_ count: UInt64) {
        let low = UInt32(truncatingIfNeeded: count)
        var high = UInt32(truncatingIfNeeded: count >> 32)
        counter.0 &+= low
        if counter.0 < low { high &+= 1 }
        counter.1 &+= high
        if counter.1 < high {
            counter.2 &+= 1
            if counter.2 == 0 { counter.3 &+= 1 }
        }
    }

    /// A float in [0, 1): the value's low 23 bits as the mantissa of a number in [1, 2), minus 1.
    static func unitFloat(_ x: UInt32) -> Float {
        Float(bitPattern: (127 << 23) | (x & 0x7F_FFFF)) - 1
    }

    /// A double in [0, 1) from 52 bits: the low 20 of `high` above the 32 of `low`.
    static func unitDouble(_ high: UInt32, _ low: UInt32) -> Double {
        Double(bitPattern: (1023 << 52) | (UInt64(high & 0xF_FFFF) << 32) | UInt64(low)) - 1
    }

    /// Two standard normal values from two uniform ones (Box-Muller), in TensorFlow's float arithmetic: the angle
    /// 2π·u rounded from double, the radius in float, `u1` kept at or above 1e-7 so its logarithm is finite.
    static func normalPair(_ x0: UInt32, _ x1: UInt32) -> (Float, Float) {
        let u1 = max(unitFloat(x0), 1.0e-7)
        let angle = Float(2.0 * Double.pi * Double(unitFloat(x1)))
        let radius = (-2 * logf(u1)).squareRoot()
        return (sinf(angle) * radius, cosf(angle) * radius)
    }
}

/// The generator of a random op (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL), seeded as TFLite's
/// random_ops.cc seeds it: from the `seed` and `seed2` options when either is non-zero, else from the system's
/// randomness. Seeded again whenever the node is prepared (TFLite's Prepare), so a model reloaded or resized
/// starts its stream over; between runs the stream continues. By default the op takes one input, a 1-D int32 shape
/// known when planning, and writes float32 values of that shape (MULTINOMIAL overrides both).
class RandomKernel: Kernel {
    let seed: Int64, seed2: Int64
    var generator = Philox(seed: 0, streamSeed: 0)

    /// How many inputs the op takes.
    class var inputCount: Int { 1 }

    required init(_ node: NodeContext) throws {
        // RandomOptions { seed: long; seed2: long; }
        seed = try node.options?.scalar(0, default: Int64(0)) ?? 0
        seed2 = try node.options?.scalar(1, default: Int64(0)) ?? 0
        try super.init(node)
        try expectCounts(inputs: Self.inputCount...Self.inputCount, outputs: 1)
    }

    func seedGenerator() {
        if seed == 0 && seed2 == 0 {
            var system = SystemRandomNumberGenerator()
            generator = Philox(seed: system.next(), streamSeed: system.next())
        } else {
            generator = Philox(seed: UInt64(bitPattern: seed), streamSeed: UInt64(bitPattern: seed2))
        }
    }

    override func prepare() throws {
        let shape = try input(0), output = try self.output(0)
        try expectType(shape, .int32)
        try expectRank(shape, 1)
        try expectType(output, .float32)
        let dimensions = try integers(shape)
        guard dimensions.allSatisfy({ $0 >= 0 }) else { throw KernelError.invalid("random op shape \(dimensions)") }
        output.shape = dimensions
        seedGenerator()
    }
}
