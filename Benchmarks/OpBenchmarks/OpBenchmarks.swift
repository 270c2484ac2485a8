import Benchmark
import LiteEngine

let benchmarks: @Sendable () -> Void = {
}
