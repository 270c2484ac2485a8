import Foundation
import LiteTasks

/// CLEAR MOT metrics (Bernardin & Stiefelhagen 2008) over a sequence: a ground-truth object and a reported
/// object correspond when their IoU is at least `matchThreshold`; correspondences of the previous frame are kept
/// while still valid, the rest are matched greedily by IoU. An ID switch is a ground-truth object matched to a
/// different tracking ID than at its last match.
public struct TrackingMetrics: Sendable, CustomStringConvertible {
    public var matchThreshold = 0.5
    public private(set) var frames = 0
    public private(set) var groundTruth = 0
    public private(set) var matches = 0
    public private(set) var falsePositives = 0
    public private(set) var misses = 0
    public private(set) var idSwitches = 0
    public private(set) var overlapSum = 0.0
    /// The tracking IDs each ground-truth actor was given, in order of first use.
    public private(set) var idsPerActor: [Int: [Int]] = [:]
    private var lastID: [Int: Int] = [:]

    public init() {}

    /// MOTA = 1 − (misses + false positives + ID switches) / ground-truth objects.
    public var mota: Double { groundTruth == 0 ? 1 : 1 - Double(misses + falsePositives + idSwitches) / Double(groundTruth) }
    /// Mean IoU of matched pairs (MOTP as overlap).
    public var motp: Double { matches == 0 ? 0 : overlapSum / Double(matches) }

    public mutating func add(truth: [SyntheticVideo.Truth], visibilityCutoff: Double, objects: [Object]) {
        frames += 1
        let visible = truth.filter { $0.occluded <= visibilityCutoff }
        let hidden = truth.filter { $0.occluded > visibilityCutoff }
        groundTruth += visible.count
        func iou(_ t: SyntheticVideo.Truth, _ o: Object) -> Double {
            let x0 = max(t.x, o.frame.minX), y0 = max(t.y, o.frame.minY)
            let x1 = min(t.x + t.width, o.frame.maxX), y1 = min(t.y + t.height, o.frame.maxY)
            let intersection = max(0, x1 - x0) * max(0, y1 - y0)
            let union = t.width * t.height + o.frame.width * o.frame.height - intersection
            return union > 0 ? intersection / union : 0
        }
        var objectTaken = [Bool](repeating: false, count: objects.count)
        var truthMatch = [Int?](repeating: nil, count: visible.count)
        for (t, item) in visible.enumerated() {
            guard let previous = lastID[item.actor],
                  let o = objects.indices.first(where: { !objectTaken[$0] && objects[$0].trackingID == previous && iou(item, objects[$0]) >= matchThreshold }) else { continue }
            objectTaken[o] = true
            truthMatch[t] = o
        }
        var pairs: [(Double, Int, Int)] = []
        for (t, item) in visible.enumerated() where truthMatch[t] == nil {
            for o in objects.indices where !objectTaken[o] {
                let overlap = iou(item, objects[o])
                if overlap >= matchThreshold { pairs.append((overlap, t, o)) }
            }
        }
        for (_, t, o) in pairs.sorted(by: { $0.0 > $1.0 }) where truthMatch[t] == nil && !objectTaken[o] {
            objectTaken[o] = true
            truthMatch[t] = o
        }
        for (t, item) in visible.enumerated() {
            guard let o = truthMatch[t] else { misses += 1; continue }
            matches += 1
            overlapSum += iou(item, objects[o])
            if let id = objects[o].trackingID {
                if let previous = lastID[item.actor], previous != id { idSwitches += 1 }
                lastID[item.actor] = id
                if !(idsPerActor[item.actor] ?? []).contains(id) { idsPerActor[item.actor, default: []].append(id) }
            }
        }
        // A report on an object that is hidden behind another is not counted against the tracker.
        for o in objects.indices where !objectTaken[o] {
            if !hidden.contains(where: { iou($0, objects[o]) >= matchThreshold }) { falsePositives += 1 }
        }
    }

    public var description: String {
        String(format: "frames %d, ground truth %d, matched %d, misses %d, false positives %d, ID switches %d, MOTA %.3f, MOTP (IoU) %.3f",
               frames, groundTruth, matches, misses, falsePositives, idSwitches, mota, motp)
    }
}
