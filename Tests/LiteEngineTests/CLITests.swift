import Foundation
import LiteEngine
import LiteFormat
import XCTest

/// The command-line contracts other tools rely on: `vision-cli inspect`, `run` and `bench`.
final class CLITests: XCTestCase {
    static var binary: URL {
        // Tests run from the build products directory, next to the vision-cli executable.
        let bundle = Bundle(for: CLITests.self).bundleURL
        let candidates = [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent("vision-cli") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// `vision-cli ink`: a JSON ink file, a batch of ../shared/ink samples as JSON lines in input order, a drawing,
    /// and errors for an empty ink or an unknown language.
    func testInkCommands() throws {
        let folder = try temporaryDirectory()
        let ink = folder.appendingPathComponent("line.json")
        let points = (0..<30).map { "{\"x\": \(100 + $0 * 10), \"y\": \(200 + ($0 % 3)), \"t\": \($0 * 15)}" }.joined(separator: ", ")
        try Data("{\"strokes\": [[\(points)]]}".utf8).write(to: ink)
        let text = try cli(["ink", ink.path, "--max-candidates", "3"]).out
        XCTAssertTrue(text.contains("1 strokes, 30 points") && text.contains("1. "), text)
        let json = try cli(["ink", ink.path, "--json", "--lang", "zxx-Zsym-x-shapes"]).out
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        let candidates = object["candidates"] as! [[String: Any]]
        XCTAssertEqual(candidates.count, 10)
        XCTAssertEqual(candidates.first?["text"] as? String, "line")
        XCTAssertTrue(candidates.allSatisfy { $0["score"] is Double })

        let omniglot = TestPaths.shared.appendingPathComponent("ink/omniglot.ndjson.gz").path
        let lines = try cli(["ink", "--batch", omniglot, "--limit", "3", "--jsonl"]).out.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        for (i, line) in lines.enumerated() {
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            XCTAssertEqual(record["index"] as? Int, i)
            XCTAssertNotNil(record["label"] as? String)
            XCTAssertNotNil(record["ms"] as? Double)
            XCTAssertFalse((record["candidates"] as! [[String: Any]]).isEmpty)
        }

        let png = folder.appendingPathComponent("line.png")
        try cli(["ink", "--render", ink.path, "--output", png.path])
        XCTAssertEqual([UInt8](try Data(contentsOf: png).prefix(4)), [0x89, 0x50, 0x4E, 0x47])

        let empty = folder.appendingPathComponent("empty.json")
        try Data("{\"strokes\": [[]]}".utf8).write(to: empty)
        XCTAssertTrue(try cli(["ink", empty.path], expectStatus: 1).err.contains("empty"))
        XCTAssertTrue(try cli(["ink", ink.path, "--lang", "nl"], expectStatus: 2).err.contains("no digital ink model"))
    }

    /// A point's time may be absent or null; anything else that is not a number of milliseconds, and a coordinate
    /// no 32-bit float holds, is an error that names the point.
    func testInkFilePointsWithBadTimesOrHugeCoordinatesAreErrors() throws {
        let folder = try temporaryDirectory()
        func read(_ json: String, expectStatus: Int32 = 0) throws -> String {
            let file = folder.appendingPathComponent("ink.json")
            try Data(json.utf8).write(to: file)
            let result = try cli(["ink", file.path], expectStatus: expectStatus)
            return result.out + result.err
        }
        XCTAssertTrue(try read("{\"strokes\": [[[0, 0, null], [30, 1, null]]]}").contains("1 strokes, 2 points"))
        XCTAssertTrue(try read("{\"strokes\": [[{\"x\": 0, \"y\": 0}, {\"x\": 30, \"y\": 1, \"t\": 9}]]}").contains("1 strokes, 2 points"))
        XCTAssertTrue(try read("{\"strokes\": [[{\"x\": 0, \"y\": 0, \"t\": \"soon\"}]]}", expectStatus: 1)
            .contains("stroke 0 point 0 has a time (soon) that is not a number of milliseconds"))
        XCTAssertTrue(try read("{\"strokes\": [[[0, 0, 0], [1, 2, 1e300]]]}", expectStatus: 1)
            .contains("stroke 0 point 1 has a time (1e+300)"))
        XCTAssertTrue(try read("{\"strokes\": [[[0, 0]], [[1e39, 0]]]}", expectStatus: 1)
            .contains("stroke 1 point 0 has a coordinate (1e+39) beyond a 32-bit float's range"))
    }

    /// An ink file or batch line over 32 MiB is refused before it is parsed (Foundation's parser would hold
    /// gigabytes); a batch goes on with the next line.
    func testOversizedInksAreRefusedBeforeParsing() throws {
        let folder = try temporaryDirectory()
        let padding = Data(repeating: UInt8(ascii: " "), count: (32 << 20) + 1)
        let big = folder.appendingPathComponent("big.json")
        try (Data("{\"strokes\": [[{\"x\": 1, \"y\": 2}]]}".utf8) + padding).write(to: big)
        XCTAssertTrue(try cli(["ink", big.path], expectStatus: 1).err.contains("at most 33554432 bytes"))

        let good = "{\"label\": \"-\", \"strokes\": [[[0, 0, 0], [30, 1, 100], [60, 0, 200]]]}\n"
        let batch = folder.appendingPathComponent("batch.ndjson")
        try (Data(good.utf8) + Data("{\"strokes\": []}".utf8) + padding + Data("\n".utf8) + Data(good.utf8)).write(to: batch)
        let lines = try cli(["ink", "--batch", batch.path, "--jsonl"], expectStatus: 1).out.split(separator: "\n")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(records.map { $0["index"] as? Int }, [0, 1, 2])
        XCTAssertNotNil(records[0]["candidates"])
        XCTAssertTrue((records[1]["error"] as? String)?.contains("at most 33554432 bytes") ?? false, "\(records[1])")
        XCTAssertNotNil(records[2]["candidates"])
    }

    /// A batch line with a NUL byte in it is one bad line: the lines after it keep their own records and indices
    /// (the reader split at NUL and merged such a line with the next), and blank lines are skipped.
    func testABatchLineWithANulByteIsOneBadLine() throws {
        let folder = try temporaryDirectory()
        let good = Data("{\"label\": \"-\", \"strokes\": [[[0, 0, 0], [30, 1, 100], [60, 0, 200]]]}\n".utf8)
        let bad = Data("{\"label\": \"x\", \"str".utf8) + Data([0]) + Data("okes\": [[[0, 0]]]}\n".utf8)
        let batch = folder.appendingPathComponent("batch.ndjson")
        try (good + bad + good + Data("\n".utf8) + good).write(to: batch)
        let lines = try cli(["ink", "--batch", batch.path, "--jsonl"], expectStatus: 1).out.split(separator: "\n")
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(records.map { $0["index"] as? Int }, [0, 1, 2, 3])
        XCTAssertTrue((records[1]["error"] as? String)?.contains("line 2 is not a JSON object") ?? false, "\(records[1])")
        for k in [0, 2, 3] where k < records.count { XCTAssertNotNil(records[k]["candidates"], "record \(k)") }
    }

    /// The main job through the registry (../shared/models as the mirror, a fresh cache): the default model says
    /// chickadee, `--model birds` the Black-capped Chickadee; a bad image among several is reported, the others
    /// still classified, and the exit status is 1.
    func testClassifyThroughTheRegistry() throws {
        let cache = try temporaryDirectory()
        let mirror = TestPaths.models.path
        let common = ["--mirror", mirror, "--cache-dir", cache.path]
        let bird = TestPaths.shared.appendingPathComponent("images/bird.png").path
        let imagenet = try cli(["classify", bird] + common).out
        XCTAssertTrue(imagenet.contains("class name  : chickadee"), imagenet)
        let birds = try cli(["classify", bird, "--model", "birds", "--json", "--max-results", "1"] + common).out
        let object = try JSONSerialization.jsonObject(with: Data(birds.utf8)) as! [String: Any]
        let head = (object["classifications"] as! [[String: Any]])[0]
        let top = (head["categories"] as! [[String: Any]])[0]
        XCTAssertEqual(top["category_name"] as? String, "Poecile atricapillus (Black-capped Chickadee)")
        let broken = cache.appendingPathComponent("broken.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: broken)
        let many = try cli(["classify", bird, broken.path, bird, "--jsonl", "--ordered", "--threads", "2", "--max-results", "1"] + common, expectStatus: 1)
        let lines = many.out.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].contains("\"error\""), String(lines[1]))
        XCTAssertTrue(lines[0].contains("chickadee") && lines[2].contains("chickadee"))
        XCTAssertTrue(many.err.contains("broken.png"))
        let listed = try cli(["models", "list"] + common).out
        XCTAssertTrue(listed.contains("mobilenet_v2_quant") && listed.contains("cached"), listed)
        XCTAssertTrue(try cli(["models", "rm", "birds"] + common).out.contains("removed birds"))
        try cli(["classify", bird, "--model", "no-such-model"] + common, expectStatus: 3)
    }

    func testRunWritesOutputsAsNumPyWithTheTensorsDtypeAndShape() throws {
        let folder = TestPaths.goldens.appendingPathComponent("ops/split")
        let out = try temporaryDirectory()
        try cli(["run", folder.appendingPathComponent("model.tflite").path, "--input", folder.appendingPathComponent("input_0.npy").path,
                 "--output-dir", out.path])
        for i in 0..<3 {
            let ours = try NumPyArray(contentsOf: out.appendingPathComponent("output_\(i).npy").path)
            let reference = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(i).npy").path)
            assertClose(ours, reference, "split output \(i)")
        }
        let argmax = TestPaths.goldens.appendingPathComponent("ops/arg_max")
        try cli(["run", argmax.appendingPathComponent("model.tflite").path, "--input", argmax.appendingPathComponent("input_0.npy").path, "--output-dir", out.path])
        let indices = try NumPyArray(contentsOf: out.appendingPathComponent("output_0.npy").path)
        XCTAssertEqual(indices, try NumPyArray(contentsOf: argmax.appendingPathComponent("output_0.npy").path))
        XCTAssertEqual(indices.type, .int64)
    }

    /// `run --signature KEY` runs that signature's subgraph: the on-device-training golden's `train` call from fresh
    /// variables gives LiteRT's loss and bias; an unknown key is an error that lists the keys.
    func testRunTakesASignature() throws {
        let folder = TestPaths.goldens.appendingPathComponent("signatures/linear_regression_train_infer")
        let model = folder.appendingPathComponent("model.tflite").path
        let out = try temporaryDirectory()
        try cli(["run", model, "--signature", "train", "--input", folder.appendingPathComponent("step0_input_target.npy").path,
                 "--input", folder.appendingPathComponent("step0_input_x.npy").path, "--output-dir", out.path])
        for (i, name) in ["loss", "b"].enumerated() {
            let ours = try NumPyArray(contentsOf: out.appendingPathComponent("output_\(i).npy").path)
            assertClose(ours, try NumPyArray(contentsOf: folder.appendingPathComponent("step0_output_\(name).npy").path), "train \(name)")
        }
        let result = try cli(["run", model, "--signature", "serving", "--output-dir", out.path], expectStatus: 1)
        XCTAssert(result.err.contains("\"infer\", \"train\""), result.err)
    }

    func testRunRejectsWrongDtypeShapeAndCount() throws {
        let folder = TestPaths.goldens.appendingPathComponent("ops/conv_1x1")
        let model = folder.appendingPathComponent("model.tflite").path
        let out = try temporaryDirectory()
        let wrongType = out.appendingPathComponent("int.npy")
        try Data(NumPyArray(type: .int32, shape: [1, 8, 8, 24], bytes: Array(repeating: 0, count: 8 * 8 * 24 * 4)).encoded()).write(to: wrongType)
        var result = try cli(["run", model, "--input", wrongType.path, "--output-dir", out.path], expectStatus: 1)
        XCTAssert(result.err.contains("int32") && result.err.contains("float32"), result.err)
        let wrongShape = out.appendingPathComponent("shape.npy")
        try Data(NumPyArray(type: .float32, shape: [1, 4, 4, 24], bytes: Array(repeating: 0, count: 4 * 4 * 24 * 4)).encoded()).write(to: wrongShape)
        result = try cli(["run", model, "--input", wrongShape.path, "--output-dir", out.path], expectStatus: 1)
        XCTAssert(result.err.contains("[1, 4, 4, 24]"), result.err)
        result = try cli(["run", model, "--output-dir", out.path], expectStatus: 1)
        XCTAssert(result.err.contains("1 inputs"), result.err)
        let garbage = out.appendingPathComponent("garbage.npy")
        try Data("not numpy".utf8).write(to: garbage)
        result = try cli(["run", model, "--input", garbage.path, "--output-dir", out.path], expectStatus: 1)
        XCTAssert(result.err.contains(".npy"), result.err)
    }

    func testBenchEndsWithOneJSONLine() throws {
        let model = TestPaths.goldens.appendingPathComponent("ops/conv_3x3_same_relu/model.tflite").path
        let (out, _) = try cli(["bench", model, "--runs", "3", "--warmup", "1", "--json"])
        let last = try XCTUnwrap(out.split(separator: "\n").last)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        for key in ["median_ms", "min_ms", "load_ms"] { XCTAssertNotNil(object[key] as? Double, key) }
    }

    /// A model whose second input is ids (int32 or int64) into a 10-row table: GATHER(table, ids) + x. `bench` fed
    /// such inputs random integers and failed with "gather index -330304337 out of range" (issue 52).
    func idsModel(_ type: TensorType = .int32) throws -> String {
        var builder = ModelBuilder()
        let x = builder.addTensor(name: "x", type: .float32, shape: [64, 4])
        let ids = builder.addTensor(name: "serving_default_ids:0", type: type, shape: [64])
        let table = builder.addConstant(name: "table", shape: [10, 4], values: (0..<40).map { Float($0) })
        let rows = builder.addTensor(name: "rows", type: .float32, shape: [64, 4])
        let y = builder.addTensor(name: "y", type: .float32, shape: [64, 4])
        builder.addOperator(.gather, inputs: [table, ids], outputs: [rows])
        builder.addOperator(.add, inputs: [rows, x], outputs: [y])
        builder.inputs = [x, ids]
        builder.outputs = [y]
        let url = try temporaryDirectory().appendingPathComponent("ids_\(type).tflite")
        try Data(builder.build()).write(to: url)
        return url.path
    }

    /// The JSON object on `bench --json`'s last line.
    func benchJSON(_ out: String) throws -> [String: Any] {
        let last = try XCTUnwrap(out.split(separator: "\n").last)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], String(last))
    }

    /// The index in "gather index N out of range" of an error message.
    func gatherIndex(_ message: String) -> Int? {
        guard let range = message.range(of: #"gather index (-?[0-9]+) out of range"#, options: .regularExpression) else { return nil }
        return Int(message[range].split(separator: " ")[2])
    }

    /// Integer ids are zeros unless told (benchmark_model's value kinds otherwise: floats in [-0.5, 0.5]);
    /// `--input-range` draws them from its range, by tensor name (with a colon in it) or by index. A run that fails
    /// (an id past the table) is status 1, a bad range or an unknown input a usage error (2).
    func testBenchFeedsIdsZerosByDefaultAndHonoursInputRange() throws {
        for type in [TensorType.int32, .int64] {
            let model = try idsModel(type)
            let (out, err) = try cli(["bench", model, "--runs", "3", "--warmup", "1", "--json"])
            XCTAssertFalse((out + err).contains("gather"), out + err)
            let inputs = try XCTUnwrap(try benchJSON(out)["inputs"] as? [[String: Any]])
            XCTAssertEqual(inputs.map { $0["fill"] as? String }, ["random", "zeros"])
            XCTAssertEqual(inputs.map { $0["type"] as? String }, ["float32", type.description])
            XCTAssertEqual(inputs[0]["low"] as? Double, -0.5)
            XCTAssertEqual(inputs[0]["high"] as? Double, 0.5)
            XCTAssertTrue(out.contains("input 1 \"serving_default_ids:0\" \(type) [64]: zeros"), out)
        }
        let model = try idsModel()
        let inRange = try cli(["bench", model, "--runs", "2", "--warmup", "0", "--input-range", "serving_default_ids:0:0,9", "--json"]).out
        let inputs = try XCTUnwrap(try benchJSON(inRange)["inputs"] as? [[String: Any]])
        XCTAssertEqual(inputs[1]["fill"] as? String, "random")
        XCTAssertEqual(inputs[1]["low"] as? Int, 0)
        XCTAssertEqual(inputs[1]["high"] as? Int, 9)
        // Outside the table, the run fails at an index from the range: the values are the range's.
        for (arguments, expected) in [(["serving_default_ids:0:20,30"], 20...30), (["1:-3,-1"], -3...(-1)), (["1:15,15"], 15...15)] {
            let err = try cli(["bench", model, "--runs", "1", "--warmup", "0", "--input-range"] + arguments, expectStatus: 1).err
            let index = try XCTUnwrap(gatherIndex(err), err)
            XCTAssertTrue(expected.contains(index), "\(arguments): index \(index)")
        }
        // A float input's range too.
        let floats = try cli(["bench", model, "--runs", "1", "--warmup", "0", "--input-range", "x:2,3", "--json"]).out
        let x = try XCTUnwrap((try benchJSON(floats)["inputs"] as? [[String: Any]])?.first)
        XCTAssertEqual([x["low"] as? Double, x["high"] as? Double], [2, 3])
        var err = try cli(["bench", model, "--input-range", "ids:0,9"], expectStatus: 2).err
        XCTAssertTrue(err.contains("no input of that name") && err.contains("1 \"serving_default_ids:0\""), err)
        err = try cli(["bench", model, "--input-range", "1:0,3000000000"], expectStatus: 2).err
        XCTAssertTrue(err.contains("beyond int32's range"), err)
        err = try cli(["bench", model, "--input-range", "1:9,0"], expectStatus: 2).err
        XCTAssertTrue(err.contains("LOW <= HIGH"), err)
        err = try cli(["bench", model, "--input-range", "1:5"], expectStatus: 2).err
        XCTAssertTrue(err.contains("NAME:LOW,HIGH"), err)
    }

    /// `--input-file NAME:PATH` gives an input a file's raw bytes; a file of another size is an error that names the
    /// byte count the tensor needs (status 1: an input the model refuses); a file that does not exist is a usage
    /// error (2), as a model that does not exist is status 3 (Docs/cli.md).
    func testBenchInputFile() throws {
        let model = try idsModel()
        let folder = try temporaryDirectory()
        func idsFile(_ value: Int32, count: Int = 64) throws -> String {
            let url = folder.appendingPathComponent("ids_\(value)_\(count).bin")
            try Array(repeating: value.littleEndian, count: count).withUnsafeBytes { try Data($0).write(to: url) }
            return url.path
        }
        let good = try idsFile(7)
        let out = try cli(["bench", model, "--runs", "2", "--warmup", "0", "--input-file", "serving_default_ids:0:\(good)", "--json"]).out
        let inputs = try XCTUnwrap(try benchJSON(out)["inputs"] as? [[String: Any]])
        XCTAssertEqual(inputs[1]["fill"] as? String, "file")
        XCTAssertEqual(inputs[1]["path"] as? String, good)
        // The values are the file's: 12 is past the table's 10 rows.
        var err = try cli(["bench", model, "--runs", "1", "--warmup", "0", "--input-file", "1:\(try idsFile(12))"], expectStatus: 1).err
        XCTAssertEqual(gatherIndex(err), 12, err)
        err = try cli(["bench", model, "--input-file", "1:\(try idsFile(7, count: 25))"], expectStatus: 1).err
        XCTAssertTrue(err.contains("has 100 bytes") && err.contains("needs 256 bytes"), err)
        err = try cli(["bench", model, "--input-file", "x:\(good)"], expectStatus: 1).err
        XCTAssertTrue(err.contains("needs 1024 bytes"), err)
        err = try cli(["bench", model, "--input-file", "1:\(folder.path)/missing.bin"], expectStatus: 2).err
        XCTAssertTrue(err.contains("missing.bin"), err)
        err = try cli(["bench", folder.appendingPathComponent("missing.tflite").path], expectStatus: 3).err
        XCTAssertTrue(err.contains("no such model file: \(folder.path)/missing.tflite"), err)
    }

    /// benchmark_model's run rules: at least --runs and at least --min-secs; no run started after --max-secs;
    /// the same for warm-up with --warmup-min-secs.
    func testBenchMinAndMaxSecs() throws {
        let model = TestPaths.goldens.appendingPathComponent("ops/conv_3x3_same_relu/model.tflite").path
        let started = Date()
        var object = try benchJSON(try cli(["bench", model, "--runs", "1", "--warmup", "0", "--min-secs", "0.5", "--json"]).out)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5)
        XCTAssertGreaterThanOrEqual(object["timed_ms"] as? Double ?? 0, 500)
        XCTAssertGreaterThan(object["runs"] as? Int ?? 0, 1)
        XCTAssertEqual(object["warmup_runs"] as? Int, 0)

        object = try benchJSON(try cli(["bench", model, "--runs", "5000000", "--warmup", "0", "--max-secs", "0.3", "--json"]).out)
        let runs = try XCTUnwrap(object["runs"] as? Int)
        XCTAssertTrue(runs > 1 && runs < 5_000_000, "\(runs)")
        XCTAssertLessThan(object["timed_ms"] as? Double ?? .infinity, 3000)

        object = try benchJSON(try cli(["bench", model, "--runs", "3", "--warmup", "1", "--warmup-min-secs", "0.3", "--json"]).out)
        XCTAssertGreaterThan(object["warmup_runs"] as? Int ?? 0, 1)
        XCTAssertGreaterThanOrEqual(object["warmup_ms"] as? Double ?? 0, 300)
        XCTAssertEqual(object["runs"] as? Int, 3)
        try cli(["bench", model, "--min-secs", "-1"], expectStatus: 2)
        try cli(["bench", model, "--max-secs", "0"], expectStatus: 2)
    }

    /// `bench --json`'s keys are the ones Docs/benchmarks.md documents ("vision-cli bench JSON"), no more and no fewer,
    /// all snake_case, slashes unescaped (Docs/cli.md); the human summary stays the last line tools/ab_bench.sh parses.
    func testBenchJSONHasTheDocumentedKeys() throws {
        let docs = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Docs/benchmarks.md"), encoding: .utf8)
        let section = try XCTUnwrap(docs.components(separatedBy: "### vision-cli bench JSON").dropFirst().first, "no \"vision-cli bench JSON\" section")
            .components(separatedBy: "\n#").first!
        var documented: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            // The first cell's `key`s (one row may name two).
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for (i, part) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where i % 2 == 1 {
                documented.insert(String(part))
            }
        }
        let topLevel = documented.filter { !$0.hasPrefix("inputs[].") }
        let nested = Set(documented.filter { $0.hasPrefix("inputs[].") }.map { String($0.dropFirst("inputs[].".count)) })
        XCTAssertTrue(topLevel.contains("peak_rss_mb"), "\(topLevel)")

        let model = try idsModel()
        let ids = try temporaryDirectory().appendingPathComponent("ids.bin")
        try Data(count: 256).write(to: ids)
        let (out, _) = try cli(["bench", model, "--runs", "3", "--warmup", "2", "--input-file", "1:\(ids.path)", "--json"])
        let object = try benchJSON(out)
        XCTAssertEqual(Set(object.keys), topLevel)
        // Docs/cli.md's JSON: slashes as they are.
        XCTAssertTrue(out.contains("\"model\":\"\(model)\""), "slashes are not escaped: \(out.suffix(300))")
        let inputs = try XCTUnwrap(object["inputs"] as? [[String: Any]])
        XCTAssertEqual(Set(inputs.flatMap(\.keys)), nested)
        for key in Set(object.keys).union(nested) {
            XCTAssertNotNil(key.range(of: "^[a-z0-9]+(_[a-z0-9]+)*$", options: .regularExpression), "\(key) is not snake_case")
        }
        for key in ["load_ms", "init_ms", "first_run_ms", "warmup_ms", "warmup_mean_ms", "min_ms", "max_ms", "mean_ms", "std_ms",
                    "median_ms", "p90_ms", "timed_ms", "peak_rss_mb", "baseline_rss_mb", "init_rss_increase_mb", "peak_rss_increase_mb"] {
            XCTAssertNotNil(object[key] as? Double, key)
        }
        XCTAssertGreaterThan(object["peak_rss_mb"] as? Double ?? 0, 1)
        XCTAssertGreaterThanOrEqual(object["peak_rss_mb"] as? Double ?? 0, object["baseline_rss_mb"] as? Double ?? .infinity)
        XCTAssertEqual(object["warmup_runs"] as? Int, 2)
        let (mean, std) = (object["mean_ms"] as? Double ?? 0, object["std_ms"] as? Double ?? -1)
        XCTAssertTrue(std >= 0 && mean >= object["min_ms"] as? Double ?? .infinity && mean <= object["max_ms"] as? Double ?? 0)

        let text = try cli(["bench", model, "--runs", "3", "--warmup", "1"]).out
        let last = try XCTUnwrap(text.split(separator: "\n").last.map(String.init))
        XCTAssertNotNil(last.range(of: #"min [0-9.]+ ms\s+median [0-9.]+"#, options: .regularExpression), last)
        XCTAssertTrue(text.contains("first run") && text.contains("peak RSS"), text)
    }

    func testInspectReportsGraphOpsMetadataAndArena() throws {
        let model = try TestPaths.model("classification/mobilenet_v1_0.25_224_1_metadata_1.tflite")
        let (text, _) = try cli(["inspect", model])
        for expected in ["inputs:", "float32 [1, 224, 224, 3]", "CONV_2D", "all ops supported: yes", "TFLITE_METADATA", "planned arena:"] {
            XCTAssert(text.contains(expected), "missing \(expected) in\n\(text)")
        }
        let (json, _) = try cli(["inspect", model, "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["all_ops_supported"] as? Bool, true)
        XCTAssertGreaterThan(object["arena_bytes"] as? Int ?? 0, 0)
        let (unsupported, _) = try cli(["inspect", try unsupportedModelPath()])
        XCTAssert(unsupported.contains("plan: node 0: LSH_PROJECTION version 1 is not supported"), unsupported)
        XCTAssert(unsupported.contains("all ops supported: no"), unsupported)
        let (perChannel, _) = try cli(["inspect", try TestPaths.model("classification/tf2_mobilenet_v2_1.0_224_ptq.tflite"), "--tensors"])
        XCTAssert(perChannel.contains("int8 [32, 3, 3, 3]  quantized per channel: dimension 0, 32 scales in ["), perChannel)
        XCTAssert(perChannel.contains("uint8 [1, 224, 224, 3]  quantized per tensor: scale 0.007843138 zero point 127"), perChannel)
        let (_, err) = try cli(["inspect", "/nonexistent.tflite"], expectStatus: 3)
        XCTAssert(err.contains("no such model file: /nonexistent.tflite"), err)
    }

    /// `detect`: JSON with frames and labels, an annotated PNG of the image's size; a bad image → exit 1, a bad
    /// detector → exit 3. `track`: one JSON line per frame in name order with tracking IDs stable on a still scene.
    func testDetectAndTrack() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let detector = TestPaths.models.appendingPathComponent("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let classifier = TestPaths.models.appendingPathComponent("mlkit/object_labeler.tflite").path
        let photo = TestPaths.shared.appendingPathComponent("images/pets.jpg").path
        let annotated = folder.appendingPathComponent("pets-annotated.png")
        let out = try cli(["detect", photo, "--multiple", "--classify", "--detector", detector, "--classifier", classifier,
                           "--json", "--annotate", annotated.path]).out
        let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        let objects = object["objects"] as! [[String: Any]]
        XCTAssertEqual(objects.count, 2, out)
        XCTAssertTrue(objects.allSatisfy { ($0["frame"] as! [String: Double])["width"]! > 50 })
        let png = try Data(contentsOf: annotated)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual([width, height], [512, 430], "the annotated image has the photo's size")

        try Data([0xFF, 0xD8, 0xFF]).write(to: folder.appendingPathComponent("broken.jpg"))
        try cli(["detect", folder.appendingPathComponent("broken.jpg").path, "--detector", detector], expectStatus: 1)
        try cli(["detect", photo, "--detector", folder.appendingPathComponent("broken.jpg").path], expectStatus: 3)

        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        for name in ["b.jpg", "a.jpg", "c.jpg"] { try FileManager.default.copyItem(atPath: photo, toPath: frames.appendingPathComponent(name).path) }
        let lines = try cli(["track", "--frames", frames.path, "--multiple", "--detector", detector, "--jsonl", "--fps", "10",
                             "--annotate-dir", folder.appendingPathComponent("annotated").path]).out.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let parsed = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(parsed.map { ($0["image"] as! NSString).lastPathComponent }, ["a.jpg", "b.jpg", "c.jpg"])
        XCTAssertEqual(parsed.map { $0["timestamp_ms"] as! Double }, [0, 100, 200])
        let ids = parsed.map { Set(($0["objects"] as! [[String: Any]]).compactMap { $0["tracking_id"] as? Int }) }
        XCTAssertEqual(ids[0].count, 2)
        XCTAssertEqual(ids[0], ids[2], "IDs are stable on a still scene")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("annotated").path).sorted(), ["a.png", "b.png", "c.png"])
    }

    /// WebP, GIF and TIFF files are taken from folders and classified; `--max-pixels` refuses a PNG over it and
    /// decodes a JPEG over it at reduced scale (still at least the model's 224x224 input), with the same top label
    /// as the full decode; `detect` reports such a JPEG's frames in the file's pixels.
    func testOtherFormatsAndMaxPixels() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = TestPaths.models.appendingPathComponent("classification/mobilenet_v2_1.0_224_quant.tflite").path
        let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/LiteImageTests/Fixtures")
        for (name, copy) in [("lossless.webp", "a.webp"), ("palette.gif", "b.gif"), ("rgb.tif", "c.tif"), ("lzw.tif", "d.TIFF")] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(copy))
        }
        let lines = try cli(["classify", folder.path, "--model", model, "--jsonl", "--max-results", "1"]).out.split(separator: "\n")
        XCTAssertEqual(lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["image"] as? String }.compactMap { $0 }.map { ($0 as NSString).lastPathComponent },
                       ["a.webp", "b.gif", "c.tif", "d.TIFF"])

        let heron = TestPaths.shared.appendingPathComponent("images/heron.jpg").path  // 2000x1508
        func top(_ arguments: [String]) throws -> String {
            let out = try cli(["classify", heron, "--model", model, "--json", "--max-results", "1"] + arguments).out
            let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
            let head = (object["classifications"] as! [[String: Any]])[0]
            return (head["categories"] as! [[String: Any]])[0]["category_name"] as! String
        }
        // 1/4 scale (500x377) is the smallest still 224 pixels on each side.
        XCTAssertEqual(try top(["--max-pixels", "1000000"]), try top([]))
        let refused = try cli(["classify", TestPaths.shared.appendingPathComponent("images/bird.png").path, "--model", model, "--max-pixels", "1000"], expectStatus: 1)
        XCTAssertTrue(refused.err.contains("more than the 1000-pixel limit"), refused.err)
        try cli(["classify", heron, "--model", model, "--max-pixels", "0"], expectStatus: 2)

        let detector = TestPaths.models.appendingPathComponent("detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let kite = TestPaths.shared.appendingPathComponent("images/kite_and_cold.jpg").path  // 1352x900
        func frames(_ arguments: [String]) throws -> [[String: Double]] {
            let out = try cli(["detect", kite, "--multiple", "--detector", detector, "--json"] + arguments).out
            let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
            return (object["objects"] as! [[String: Any]]).map { $0["frame"] as! [String: Double] }
        }
        let full = try frames([]), half = try frames(["--max-pixels", "500000"])  // 676x450 is decoded
        // Measured: four of the five objects are found on both, within 10 pixels of the file (the fifth differs).
        let matched = half.filter { b in
            full.contains { a in ["x", "y", "width", "height"].allSatisfy { abs(a[$0]! - b[$0]!) <= 10 } }
        }
        XCTAssertGreaterThanOrEqual(matched.count, 4, "\(full)\n\(half)")
        XCTAssertTrue(half.allSatisfy { $0["x"]! + $0["width"]! <= 1353 && $0["y"]! + $0["height"]! <= 901 })
    }
}
