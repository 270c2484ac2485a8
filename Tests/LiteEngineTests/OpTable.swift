import Foundation
import LiteEngine

/// The op table, Goldens/op_cases.json: every single-op golden (model, inputs and LiteRT's outputs in Goldens/ops/<name>)
/// with its family, its model's ops and which checks apply. tools/make_op_goldens.py writes it from tools/op_cases/;
/// OpGoldenTests, KernelConsistencyTests and Benchmarks/OpBenchmarks read it.
///
/// `LITEVISION_OPS=CONV_2D,ADD` keeps only the cases whose model has one of these ops (or whose name is one of them),
/// in the manner of ggml's `test-backend-ops -o`.
struct OpTable: Decodable {
    struct Case: Decodable {
        /// The tools/op_cases module that registered it; one OpGoldenTests method runs each family.
        let family: String
        let ops: [String]
        let inputs: Int
        let outputs: Int
        /// Float outputs compared bit for bit (special values, rounding order), not within 1e-4.
        let exact: Bool?
        /// NaN, ±inf and ±FLT_MAX where LiteRT has them, other float values within 1e-4 of the largest other value.
        let special: Bool?
        /// The numerics modes (`Numerics` raw values) the case runs in.
        let numerics: [String]

        var numericsModes: [Numerics] { numerics.compactMap(Numerics.init(rawValue:)) }
    }

    let cases: [String: Case]

    static let url = TestPaths.goldens.appendingPathComponent("op_cases.json")
    static let shared: Result<OpTable, Error> = Result { try JSONDecoder().decode(OpTable.self, from: Data(contentsOf: url)) }

    /// The ops (or case names) `LITEVISION_OPS` asks for; nil when it is unset or empty.
    static let filter: Set<String>? = {
        guard let value = ProcessInfo.processInfo.environment["LITEVISION_OPS"], !value.isEmpty else { return nil }
        return Set(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
    }()

    /// Whether `LITEVISION_OPS` keeps this case.
    static func keeps(_ name: String, _ entry: Case) -> Bool {
        guard let filter else { return true }
        return filter.contains(name.uppercased()) || entry.ops.contains(where: filter.contains)
    }

    /// The cases `LITEVISION_OPS` keeps, in name order; only those of `family` when given.
    func selected(family: String? = nil) -> [(name: String, entry: Case)] {
        cases.filter { (family == nil || $0.value.family == family) && OpTable.keeps($0.key, $0.value) }
            .sorted { $0.key < $1.key }.map { (name: $0.key, entry: $0.value) }
    }

    /// The case's folder of model, inputs and LiteRT's outputs.
    static func folder(_ name: String) -> URL { TestPaths.goldens.appendingPathComponent("ops/\(name)") }
}
