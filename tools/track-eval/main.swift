// Runs the object tracker over the synthetic videos of TrackingEvaluation and prints CLEAR MOT metrics and
// per-frame latency as a Markdown table (Docs/benchmarks.md, "Tracking").
//
//   swift run -c release track-eval [--images DIR] [--detector PATH] [--classifier PATH] [--frames-out DIR]
//                                   [--classify-all]
//
// Models default to ../shared/models (COCO SSD quantized, ML Kit's object_labeler). --classify-all classifies every
// object in every frame (worst-case latency) instead of stream mode's two-per-frame budget.
import Dispatch
import Foundation
import LiteImage
import LiteTasks
import TrackingEvaluation

var arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let shared = root.appendingPathComponent("../shared").standardized.path
let images = option("--images") ?? shared + "/images"
let detectorPath = option("--detector") ?? shared + "/models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
let classifierPath = option("--classifier") ?? shared + "/models/mlkit/object_labeler.tflite"
let framesOut = option("--frames-out")
let classifyAll = arguments.contains("--classify-all")
let detectorThreshold = option("--detector-threshold").flatMap(Float.init)
let only = option("--only")
let verbose = arguments.contains("--verbose")

print("| sequence | frames | objects (GT) | ID switches | MOTA | MOTP (IoU) | misses | false pos. | IDs per object | latency median / p90 (ms) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for video in SyntheticVideo.all where only.map({ video.name.contains($0) }) ?? true {
    var options = CustomObjectDetectorOptions(localModel: LocalModel(path: classifierPath))
    options.detectorModel = .local(LocalModel(path: detectorPath))
    options.detectorMode = .stream
    options.shouldEnableMultipleObjects = true
    options.shouldEnableClassification = true
    options.detectorScoreThreshold = detectorThreshold
    if classifyAll {
        options.classificationsPerFrame = ObjectDetector.maximumObjects
        options.relabelInterval = 1
    }
    let detector = try ObjectDetector.objectDetector(options: options)
    let renderer = try SyntheticVideo.Renderer(video, imagesDirectory: images)
    var metrics = TrackingMetrics()
    var latencies: [Double] = []
    for index in 0..<video.frameCount {
        let (image, truth) = try renderer.frame(index)
        if arguments.contains("--profile") {
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = try detector.detector.proposals(in: image)
            FileHandle.standardError.write(Data(String(format: "detector alone %.1f ms\n", Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6).utf8))
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let objects = try detector.results(in: VisionImage(image: image))
        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        metrics.add(truth: truth, visibilityCutoff: video.visibilityCutoff, objects: objects)
        if verbose {
            let seen = objects.map { String(format: "#%d %.2f [%.0f %.0f %.0f %.0f]", $0.trackingID ?? -1, $0.detectionConfidence, $0.frame.minX, $0.frame.minY, $0.frame.width, $0.frame.height) }
            let expected = truth.map { String(format: "%@ [%.0f %.0f %.0f %.0f] occ %.2f", video.actors[$0.actor].name, $0.x, $0.y, $0.width, $0.height, $0.occluded) }
            FileHandle.standardError.write(Data("\(index): \(seen.joined(separator: ", ")) | \(expected.joined(separator: ", "))\n".utf8))
        }
        if let framesOut {
            let folder = (framesOut as NSString).appendingPathComponent(video.name.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: ",", with: ""))
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(image.annotated(with: objects).pngData()).write(to: URL(fileURLWithPath: String(format: "%@/%04d.png", folder, index)))
        }
    }
    latencies.sort()
    let ids = metrics.idsPerActor.keys.sorted().map { "\(video.actors[$0].name): \(metrics.idsPerActor[$0]!.count)" }.joined(separator: ", ")
    print(String(format: "| %@ | %d | %d | %d | %.3f | %.3f | %d | %d | %@ | %.1f / %.1f |", video.name, metrics.frames, metrics.groundTruth,
                 metrics.idSwitches, metrics.mota, metrics.motp, metrics.misses, metrics.falsePositives, ids,
                 latencies[latencies.count / 2], latencies[latencies.count * 9 / 10]))
}
