import Foundation
import XCTest

/// A `vision-cli` copied out of the build works without the checkout: the registry and the digital ink models are
/// compiled into it (Sources/CBundledFiles), and the other models come through the cache and the mirror.
///
/// The binary is copied into an empty folder and run in a private mount namespace in which the checkout (and the
/// build products folder, wherever it is) is an empty tmpfs, so nothing under it (models/, Sources/, .build) can be
/// read. A binary that looks for its data through `#filePath` or beside the build fails here. The namespace needs
/// `unshare` with mount rights (root, or user namespaces); without them the test fails rather than skips.
final class RelocationTests: XCTestCase {
    let checkout = TestPaths.packageRoot.resolvingSymlinksInPath()

    /// The command prefix that runs `sh -c SCRIPT` in a mount namespace of its own: `unshare -m` as root, else with a
    /// user namespace that maps the caller to root.
    func namespacePrefix(hiding hidden: [String]) throws -> [String] {
        var tried: [String] = []
        for prefix in [["unshare", "--mount"], ["unshare", "--mount", "--map-root-user"]] {
            let probe = hidden.map { "mount -t tmpfs none '\($0)' && test -z \"$(ls -A '\($0)')\"" }.joined(separator: " && ")
            let result = try run(["/usr/bin/env"] + prefix + ["sh", "-c", probe], in: FileManager.default.temporaryDirectory, environment: [:])
            if result.status == 0 { return prefix }
            tried.append("\(prefix.joined(separator: " ")): status \(result.status) \(result.err)")
        }
        throw NoMountNamespace(description: "cannot hide the checkout in a private mount namespace (this test needs unshare with mount rights, as root or through user namespaces):\n\(tried.joined(separator: "\n"))")
    }

    struct NoMountNamespace: Error, CustomStringConvertible { let description: String }

    func run(_ arguments: [String], in directory: URL, environment: [String: String]) throws -> (status: Int32, out: String, err: String) {
        var variables: [String: String?] = ["LITEVISION_REGISTRY": nil]
        for (key, value) in environment { variables[key] = value }
        let result = try runChildProcess(URL(fileURLWithPath: arguments[0]), Array(arguments.dropFirst()), environment: variables,
                                         directory: directory)
        return (result.status, result.out, result.err)
    }

    func testACopiedBinaryWorksWithoutTheCheckout() throws {
        let fileManager = FileManager.default
        let folder = fileManager.temporaryDirectory.appendingPathComponent("relocated-\(UUID().uuidString)").resolvingSymlinksInPath()
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: folder) }
        XCTAssertFalse(folder.path.hasPrefix(checkout.path + "/"), "the temporary folder \(folder.path) is inside the checkout")

        // Everything the commands read from outside the checkout is found before it is hidden.
        let mirror = TestPaths.models.resolvingSymlinksInPath()
        let shared = TestPaths.shared.resolvingSymlinksInPath()
        for path in [mirror.path, shared.path] where path.hasPrefix(checkout.path + "/") {
            XCTFail("\(path) is inside the checkout; the relocated binary could not read it")
        }
        let binary = CLITests.binary.resolvingSymlinksInPath()
        try fileManager.copyItem(at: binary, to: folder.appendingPathComponent("vision-cli"))
        let cache = folder.appendingPathComponent("cache")

        var hidden = [checkout.path]
        let products = binary.deletingLastPathComponent().path
        if !products.hasPrefix(checkout.path + "/") { hidden.append(products) }
        let prefix = try namespacePrefix(hiding: hidden)
        let environment = ["LITEVISION_CACHE_DIR": cache.path, "LITEVISION_MODEL_MIRROR": mirror.path]

        /// Runs the copied binary from `folder` with the checkout hidden.
        func relocated(_ arguments: [String], expectStatus status: Int32 = 0) throws -> String {
            let mounts = hidden.map { "mount -t tmpfs none '\($0)'" }.joined(separator: " && ")
            let script = "\(mounts) && exec ./vision-cli \"$@\""
            let result = try run(["/usr/bin/env"] + prefix + ["sh", "-c", script, "sh"] + arguments, in: folder, environment: environment)
            XCTAssertEqual(result.status, status, "vision-cli \(arguments.joined(separator: " "))\n\(result.out)\n\(result.err)")
            return result.out
        }

        // The registry is in the binary: the default classifier comes from the mirror into the empty cache.
        let bird = shared.appendingPathComponent("images/bird.png").path
        let classified = try relocated(["classify", bird])
        XCTAssertTrue(classified.contains("class name  : chickadee"), classified)
        XCTAssertTrue(fileManager.fileExists(atPath: cache.path), "the model was fetched into LITEVISION_CACHE_DIR")
        let listed = try relocated(["models", "list"])
        XCTAssertTrue(listed.contains("ink-en") && listed.contains("bundled"), listed)

        // Detection and labelling with the registry's default detector and classifier.
        let pets = shared.appendingPathComponent("images/pets.jpg").path
        let detected = try relocated(["detect", pets, "--multiple", "--classify", "--json"])
        let objects = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(detected.utf8)) as? [String: Any])?["objects"] as? [[String: Any]], detected)
        XCTAssertEqual(objects.count, 2, detected)

        // Digital ink: the shapes model with its labels and geometry network, the text model with its lexicon and
        // character network, all from the binary.
        let line = folder.appendingPathComponent("line.json")
        let points = (0..<30).map { "{\"x\": \(100 + $0 * 10), \"y\": \(200 + ($0 % 3)), \"t\": \($0 * 15)}" }.joined(separator: ", ")
        try Data("{\"strokes\": [[\(points)]]}".utf8).write(to: line)
        let shape = try relocated(["ink", line.path, "--json", "--lang", "zxx-Zsym-x-shapes"])
        let shapes = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(shape.utf8)) as? [String: Any])?["candidates"] as? [[String: Any]], shape)
        XCTAssertEqual(shapes.first?["text"] as? String, "line", shape)
        let omniglot = shared.appendingPathComponent("ink/omniglot.ndjson.gz").path
        let records = try relocated(["ink", "--batch", omniglot, "--limit", "3", "--jsonl"]).split(separator: "\n")
        XCTAssertEqual(records.count, 3)
        for record in records {
            let object = try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any]
            XCTAssertFalse((object?["candidates"] as? [[String: Any]] ?? []).isEmpty, String(record))
        }
        let text = try relocated(["ink", line.path, "--max-candidates", "3"])
        XCTAssertTrue(text.contains("1 strokes, 30 points") && text.contains("1. "), text)
    }
}
