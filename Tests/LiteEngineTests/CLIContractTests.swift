import Foundation
import XCTest

/// The command-line conventions users rely on (Docs/cli.md): negative option values, labels with commas, one JSON
/// style, output files by extension with errors that name them, model paths and registry names everywhere, flags
/// that exclude each other, `--version` and the exit statuses.
final class CLIContractTests: XCTestCase {
    let bird = TestPaths.shared.appendingPathComponent("images/bird.png").path
    let pets = TestPaths.shared.appendingPathComponent("images/pets.jpg").path
    var registry: [String] { ["--mirror", TestPaths.models.path] }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// `--max-results -1` (all categories, as documented) is a value, not an unknown option.
    func testNegativeNumbersAreOptionValues() throws {
        let all = try json(cli(["classify", bird, "--max-results", "-1", "--json"] + registry).out)
        let categories = try XCTUnwrap(((all["classifications"] as? [[String: Any]])?.first?["categories"]) as? [[String: Any]])
        XCTAssertEqual(categories.count, 1001, "every ImageNet category")
        let out = try cli(["detect", pets, "--detector-threshold", "-0.5", "--multiple", "--json"] + registry).out
        XCTAssertFalse(try XCTUnwrap(json(out)["objects"] as? [[String: Any]]).isEmpty)
    }

    /// Labels contain commas ("junco, snowbird"): `--allow` repeats, each value one whole label, or comes from a file.
    func testAllowlistLabelsMayContainCommas() throws {
        func names(_ arguments: [String]) throws -> [String] {
            let object = try json(cli(["classify", bird, "--json", "--max-results", "-1"] + arguments + registry).out)
            let head = try XCTUnwrap((object["classifications"] as? [[String: Any]])?.first)
            return try XCTUnwrap(head["categories"] as? [[String: Any]]).compactMap { $0["category_name"] as? String }
        }
        XCTAssertEqual(Set(try names(["--allow", "junco, snowbird", "--allow", "chickadee"])), ["junco, snowbird", "chickadee"])
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("allow-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: list) }
        try Data("junco, snowbird\n\nwater ouzel, dipper\n".utf8).write(to: list)
        XCTAssertEqual(Set(try names(["--allow-file", list.path])), ["junco, snowbird", "water ouzel, dipper"])
        let denied = try names(["--deny", "junco, snowbird"])
        XCTAssertFalse(denied.contains("junco, snowbird"))
        XCTAssertEqual(denied.count, 1000)
        try cli(["classify", bird, "--allow", "chickadee", "--deny", "robin"] + registry, expectStatus: 2)
    }

    /// One key style (snake_case) and one box form (`{x, y, width, height}`) in every command's JSON; slashes as
    /// they are.
    func testJSONHasOneKeyStyleAndOneBoxForm() throws {
        func keys(_ value: Any) -> [String] {
            if let object = value as? [String: Any] { return object.keys + object.values.flatMap(keys) }
            if let array = value as? [Any] { return array.flatMap(keys) }
            return []
        }
        func boxes(_ value: Any, under key: String? = nil) -> [Any] {
            if let object = value as? [String: Any] { return object.flatMap { ["box", "frame"].contains($0.key) ? [$0.value] : boxes($0.value) } }
            if let array = value as? [Any] { return array.flatMap { boxes($0) } }
            return []
        }
        let ink = FileManager.default.temporaryDirectory.appendingPathComponent("ink-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: ink) }
        let points = (0..<30).map { "[\(100 + $0 * 10), \(200 + $0 % 3), \($0 * 15)]" }.joined(separator: ", ")
        try Data("{\"strokes\": [[\(points)]]}".utf8).write(to: ink)
        let outputs = [
            try cli(["classify", bird, "--json"] + registry).out,
            try cli(["detect", pets, "--multiple", "--classify", "--json"] + registry).out,
            try cli(["ink", ink.path, "--json"]).out,
            try cli(["inspect", "birds", "--json"] + registry).out,
            try cli(["models", "list", "--json"] + registry).out,
        ]
        var boxCount = 0
        for text in outputs {
            XCTAssertFalse(text.contains("\\/"), "slashes are not escaped: \(text.prefix(300))")
            let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
            for key in keys(value) {
                XCTAssertEqual(key, key.lowercased(), "snake_case key \(key) in \(text.prefix(200))")
            }
            for box in boxes(value) {
                XCTAssertEqual(Set((box as? [String: Any])?.keys.map { $0 } ?? []), ["x", "y", "width", "height"], "\(box)")
                boxCount += 1
            }
        }
        XCTAssertGreaterThan(boxCount, 2, "detect frames and ink boxes were checked")
    }

    /// `--annotate` writes PNG or JPEG by the name's extension and refuses others before any work; an output that
    /// cannot be written is exit status 4 with the output's path and reason, not the input photo's.
    func testOutputsFollowTheirExtensionAndErrorsNameThem() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("boxes.jpg")
        try cli(["detect", pets, "--annotate", jpeg.path] + registry)
        XCTAssertEqual([UInt8](try Data(contentsOf: jpeg).prefix(3)), [0xFF, 0xD8, 0xFF])
        let png = folder.appendingPathComponent("boxes.PNG")
        try cli(["detect", pets, "--annotate", png.path] + registry)
        XCTAssertEqual([UInt8](try Data(contentsOf: png).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let gif = try cli(["detect", pets, "--annotate", folder.appendingPathComponent("boxes.gif").path] + registry, expectStatus: 2)
        XCTAssertTrue(gif.err.contains("boxes.gif") && gif.err.contains(".png, .jpg or .jpeg"), gif.err)
        let unwritable = folder.appendingPathComponent("missing/boxes.png").path
        let failed = try cli(["detect", pets, "--annotate", unwritable] + registry, expectStatus: 4)
        XCTAssertTrue(failed.err.contains("cannot write \(unwritable): No such file or directory"), failed.err)
        XCTAssertFalse(failed.err.contains("pets.jpg") || failed.err.contains("NSCocoaErrorDomain"), failed.err)
    }

    /// Beyond ML Kit, `detect` reports the detector's own class: on pets.jpg object_labeler is unsure of the two dogs
    /// (one unlabelled, the other "Sculpture"), COCO SSD says dog for both. In JSON as `detector_label`, in text
    /// beside the detector score.
    func testDetectReportsTheDetectorsClass() throws {
        let objects = try XCTUnwrap(json(cli(["detect", pets, "--multiple", "--classify", "--json"] + registry).out)["objects"] as? [[String: Any]])
        XCTAssertEqual(objects.count, 2)
        for object in objects {
            let label = try XCTUnwrap(object["detector_label"] as? [String: Any], "\(object)")
            XCTAssertEqual(Set(label.keys), ["text", "index", "confidence"])
            XCTAssertEqual(label["text"] as? String, "dog")
            XCTAssertEqual(label["index"] as? Int, 17)
            let confidence = try XCTUnwrap(label["confidence"] as? Double)
            XCTAssertGreaterThan(confidence, 0.5)
            XCTAssertEqual(confidence, try XCTUnwrap(object["detection_confidence"] as? Double))
            XCTAssertNotNil(object["labels"] as? [Any], "ML Kit's labels are still there")
        }
        let text = try cli(["detect", pets, "--multiple"] + registry).out
        XCTAssertEqual(text.components(separatedBy: ", class dog (index 17))").count - 1, 2, text)
    }

    /// `detect` with several images, `--threads 2` and `--ordered`: one record per image in input order (a broken image's error
    /// record in its place, exit status 1), each the same as detecting that image alone; `--annotate` writes one
    /// file per image.
    func testDetectInParallelKeepsInputOrderAndResults() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: photos) }
        let names = ["a-pets.jpg", "b-cats_and_dogs.jpg", "c-broken.jpg", "d-multi_objects.jpg", "e-beach.jpg", "f-kite_and_cold.jpg"]
        for name in names {
            let target = photos.appendingPathComponent(name)
            if name == "c-broken.jpg" {
                try Data("not a JPEG".utf8).write(to: target)
            } else {
                let source = TestPaths.shared.appendingPathComponent("images/" + name.dropFirst(2))
                try FileManager.default.copyItem(at: source, to: target)
            }
        }
        let annotate = folder.appendingPathComponent("boxes.png").path
        let result = try cli(["detect", photos.path, "--multiple", "--classify", "--threads", "2", "--jsonl", "--ordered", "--annotate", annotate] + registry,
                             expectStatus: 1)
        let records = try result.out.split(separator: "\n").map { try json(String($0)) }
        XCTAssertEqual(records.compactMap { $0["image"] as? String }, names.map { photos.appendingPathComponent($0).path })
        XCTAssertTrue(result.err.contains("c-broken.jpg"), result.err)
        for (name, record) in zip(names, records) {
            let path = photos.appendingPathComponent(name).path
            if name == "c-broken.jpg" {
                XCTAssertNotNil(record["error"] as? String, "\(record)")
                continue
            }
            var alone = try json(cli(["detect", path, "--multiple", "--classify", "--json"] + registry).out)
            var parallel = record
            XCTAssertEqual(parallel["index"] as? Int, names.firstIndex(of: name))
            for key in ["ms", "index"] {
                alone[key] = nil
                parallel[key] = nil
            }
            XCTAssertFalse(try XCTUnwrap(parallel["objects"] as? [Any]).isEmpty, name)
            XCTAssertEqual(NSDictionary(dictionary: parallel), NSDictionary(dictionary: alone), name)
            let stem = (name as NSString).deletingPathExtension
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("boxes-\(stem).png").path), stem)
        }
        // An annotated image that cannot be written still ends the run with status 4, naming the output.
        let unwritable = folder.appendingPathComponent("missing/boxes.png").path
        let failed = try cli(["detect", photos.path, "--threads", "2", "--annotate", unwritable] + registry, expectStatus: 4)
        XCTAssertTrue(failed.err.contains("cannot write \(folder.appendingPathComponent("missing/boxes-").path)"), failed.err)
    }

    /// A model path that does not exist says so (status 3); inspect and run take registry names like the pipelines.
    func testModelPathsAndRegistryNames() throws {
        let missing = try cli(["classify", bird, "--model", "foo.tflite"] + registry, expectStatus: 3)
        XCTAssertTrue(missing.err.contains("no such model file: foo.tflite"), missing.err)
        XCTAssertFalse(missing.err.contains("registry"), missing.err)
        let unknown = try cli(["classify", bird, "--model", "no-such-name"] + registry, expectStatus: 3)
        XCTAssertTrue(unknown.err.contains("no model named \"no-such-name\""), unknown.err)
        XCTAssertTrue(try cli(["inspect", "birds"] + registry).out.contains("subgraph 0"))
        XCTAssertTrue(try cli(["bench", "birds", "--runs", "1"] + registry).out.contains("median"))
        let out = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try cli(["run", "birds", "--output-dir", out.path] + registry, expectStatus: 1)
        XCTAssertTrue(run.err.contains("1 inputs, 0 --input given"), run.err)
    }

    /// Flags that exclude each other are usage errors (status 2), as is an unknown value.
    func testExclusiveFlagsAndUsageErrors() throws {
        for arguments in [["classify", bird, "--json", "--jsonl"], ["detect", pets, "--json", "--jsonl"], ["ink", "x.json", "--json", "--jsonl"],
                          ["classify", bird, "--threads", "0"], ["detect", pets, "--threads", "0"], ["classify", "/no/such/photo.jpg"], ["classify", bird, "--numerics", "sloppy"]] {
            let result = try cli(arguments + registry, expectStatus: 2)
            XCTAssertFalse(result.err.isEmpty, arguments.joined(separator: " "))
        }
    }

    /// `shapes`, the alias `models list` shows, is accepted as a language; `--version` prints the version.
    func testShapesAliasAndVersion() throws {
        let ink = FileManager.default.temporaryDirectory.appendingPathComponent("shape-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: ink) }
        let points = (0..<30).map { "[\(100 + $0 * 10), \(200 + $0 % 3), \($0 * 15)]" }.joined(separator: ", ")
        try Data("{\"strokes\": [[\(points)]]}".utf8).write(to: ink)
        let shapes = try json(cli(["ink", ink.path, "--lang", "shapes", "--json"]).out)
        XCTAssertEqual((shapes["candidates"] as? [[String: Any]])?.first?["text"] as? String, "line")
        let version = try cli(["--version"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil, version)
    }

    /// tools/setup.sh puts the Python packages in the project's own virtual environment and stops, with a message,
    /// when it cannot: run from a copy with a python3 whose venv module fails, as on a Debian without python3-venv.
    func testSetupStopsWhenItCannotMakeTheVirtualEnvironment() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tools = folder.appendingPathComponent("tools"), fakeBin = folder.appendingPathComponent("bin")
        for directory in [tools, fakeBin] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("tools/setup.sh"), to: tools.appendingPathComponent("setup.sh"))
        let python = fakeBin.appendingPathComponent("python3")
        try Data("#!/bin/sh\necho 'No module named venv' >&2\nexit 1\n".utf8).write(to: python)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: python.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [tools.appendingPathComponent("setup.sh").path]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = fakeBin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0, message)
        XCTAssertTrue(message.contains("python3 -m venv failed"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".venv/bin/python").path))
    }
}
