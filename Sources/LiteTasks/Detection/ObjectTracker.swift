import LiteEngine

/// Gives detections stable IDs from frame to frame, for stream mode.
///
/// Each track keeps its last box and a smoothed velocity (centre motion per frame). A new frame's detections
/// are matched to tracks in two greedy passes: first by IoU between the detection and the track's predicted box
/// (last box moved by its velocity for every frame since it was seen), best overlap first, at least
/// `minimumOverlap`; then, for what is left, by centre distance when the centres are within `maximumJump` of the
/// track's size and the sizes within a factor of 4 in area (fast motion). A detection that lies mostly inside a
/// better-scored one, or an unmatched one mostly inside a matched one, is a part of an object the detector also
/// boxed and is dropped; any other unmatched detection starts a new track
/// with the next ID (IDs are never reused). A track is reported once it has been seen in `confirmationFrames`
/// frames; a reported track the detector misses keeps being reported at its predicted place for up to
/// `coastingFrames` frames, and is dropped after `maximumMissedFrames` frames without a match.
public struct ObjectTracker: Sendable {
    /// The tracker's parameters (``CustomObjectDetectorOptions/tracking`` for an ``ObjectDetector``).
    public struct Options: Sendable, Equatable {
        /// IoU a detection needs with a track's predicted box to match it in the first pass.
        public var minimumOverlap: Float = 0.2
        /// Centre distance allowed in the second pass, as a fraction of the track's box diagonal.
        public var maximumJump: Float = 0.6
        /// Frames a track survives without a match (occlusion, a missed detection).
        public var maximumMissedFrames = 10
        /// Weight of the newest motion in the velocity estimate.
        public var velocitySmoothing: Float = 0.5
        /// Frames a new track must be seen in before it is reported (1: at once).
        public var confirmationFrames = 1
        /// Frames a reported track is still reported, at its predicted box, while the detector misses it.
        public var coastingFrames = 3
        /// An unmatched detection with at least this fraction of its area inside a matched one is a duplicate.
        public var duplicateContainment: Float = 0.6

        /// The default parameters.
        public init() {}
    }

    /// One tracked object.
    public struct Track: Sendable, Equatable {
        /// The tracking ID: 0 for the first track, then increasing, never reused.
        public let id: Int
        /// The last matched box, in normalized coordinates.
        public internal(set) var box: DetectionBox
        /// Smoothed horizontal motion of the box centre per frame, in normalized coordinates.
        public internal(set) var velocityX: Float = 0
        /// Smoothed vertical motion of the box centre per frame, in normalized coordinates.
        public internal(set) var velocityY: Float = 0
        /// Frames since the track was last matched.
        public internal(set) var missedFrames = 0
        /// Frames in which the track was matched.
        public internal(set) var hits = 1
        /// Whether the track has been reported (seen in enough frames).
        public internal(set) var confirmed = false

        /// Where the track is expected in the next frame.
        public var predicted: DetectionBox { moved(frames: missedFrames + 1) }

        /// The last box moved by the velocity for `frames` frames.
        func moved(frames: Int) -> DetectionBox {
            let dx = velocityX * Float(frames), dy = velocityY * Float(frames)
            return DetectionBox(ymin: box.ymin + dy, xmin: box.xmin + dx, ymax: box.ymax + dy, xmax: box.xmax + dx)
        }
    }

    /// The tracker's parameters.
    public var options: Options
    /// The live tracks, reported or not yet confirmed.
    public private(set) var tracks: [Track] = []
    private var nextID = 0

    /// A tracker with no tracks.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Forgets every track; IDs keep increasing.
    public mutating func reset() {
        tracks.removeAll()
    }

    /// A track to report for this frame: its ID, box, and the index of the detection it matched (nil while
    /// coasting through a missed detection).
    public struct Report: Sendable, Equatable {
        /// The track's ID.
        public var id: Int
        /// The matched detection's box, or the predicted box while coasting.
        public var box: DetectionBox
        /// Index of the matched detection in the frame's boxes; nil while coasting.
        public var detection: Int?
    }

    /// Matches this frame's boxes to tracks and returns the tracks to report: matched confirmed tracks in the
    /// boxes' order, then coasting ones.
    public mutating func update(with detections: [DetectionBox]) -> [Report] {
        // Boxes come best first; one mostly inside a better one is a part of that object, not an object.
        var keep: [Int] = []
        for b in detections.indices {
            let area = max(detections[b].area, 1e-12)
            if !keep.contains(where: { intersection(detections[b], detections[$0]) / area >= options.duplicateContainment }) { keep.append(b) }
        }
        let boxes = keep.map { detections[$0] }
        var assignment = [Int?](repeating: nil, count: boxes.count)
        var trackTaken = [Bool](repeating: false, count: tracks.count)
        let predictions = tracks.map(\.predicted)

        var pairs: [(overlap: Float, track: Int, box: Int)] = []
        for t in tracks.indices {
            for b in boxes.indices {
                let overlap = predictions[t].intersectionOverUnion(boxes[b])
                if overlap >= options.minimumOverlap { pairs.append((overlap, t, b)) }
            }
        }
        pairs.sort { $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.track, $0.box) < ($1.track, $1.box) }
        for pair in pairs where !trackTaken[pair.track] && assignment[pair.box] == nil {
            trackTaken[pair.track] = true
            assignment[pair.box] = pair.track
        }

        var jumps: [(distance: Float, track: Int, box: Int)] = []
        for t in tracks.indices where !trackTaken[t] {
            let p = predictions[t]
            let diagonal = (p.width * p.width + p.height * p.height).squareRoot()
            for b in boxes.indices where assignment[b] == nil {
                let d = centreDistance(p, boxes[b])
                let sizeRatio = max(boxes[b].area, 1e-12) / max(p.area, 1e-12)
                if d <= options.maximumJump * diagonal && sizeRatio >= 0.25 && sizeRatio <= 4 { jumps.append((d, t, b)) }
            }
        }
        jumps.sort { $0.distance != $1.distance ? $0.distance < $1.distance : ($0.track, $0.box) < ($1.track, $1.box) }
        for jump in jumps where !trackTaken[jump.track] && assignment[jump.box] == nil {
            trackTaken[jump.track] = true
            assignment[jump.box] = jump.track
        }

        var reports: [Report] = []
        for b in boxes.indices {
            guard let t = assignment[b] else { continue }
            var track = tracks[t]
            let steps = Float(track.missedFrames + 1)
            let (oldX, oldY) = centre(track.box), (newX, newY) = centre(boxes[b])
            let alpha = options.velocitySmoothing
            track.velocityX = alpha * (newX - oldX) / steps + (1 - alpha) * track.velocityX
            track.velocityY = alpha * (newY - oldY) / steps + (1 - alpha) * track.velocityY
            track.box = boxes[b]
            track.missedFrames = 0
            track.hits += 1
            if track.hits >= options.confirmationFrames { track.confirmed = true }
            tracks[t] = track
            if track.confirmed { reports.append(Report(id: track.id, box: track.box, detection: keep[b])) }
        }
        for t in tracks.indices where !trackTaken[t] { tracks[t].missedFrames += 1 }
        tracks.removeAll { $0.missedFrames > options.maximumMissedFrames || (!$0.confirmed && $0.missedFrames > 0) }
        for track in tracks where track.confirmed && track.missedFrames > 0 && track.missedFrames <= options.coastingFrames {
            // Where the track is expected in this frame (missedFrames already counts this one).
            reports.append(Report(id: track.id, box: track.moved(frames: track.missedFrames), detection: nil))
        }
        let matched = boxes.indices.filter { assignment[$0] != nil }
        for b in boxes.indices where assignment[b] == nil {
            let area = max(boxes[b].area, 1e-12)
            let duplicate = matched.contains { m in intersection(boxes[b], boxes[m]) / area >= options.duplicateContainment }
            if duplicate { continue }
            var track = Track(id: nextID, box: boxes[b])
            nextID += 1
            track.confirmed = options.confirmationFrames <= 1
            tracks.append(track)
            if track.confirmed { reports.append(Report(id: track.id, box: track.box, detection: keep[b])) }
        }
        return reports
    }

    private func intersection(_ a: DetectionBox, _ b: DetectionBox) -> Float {
        max(min(a.ymax, b.ymax) - max(a.ymin, b.ymin), 0) * max(min(a.xmax, b.xmax) - max(a.xmin, b.xmin), 0)
    }

    private func centre(_ box: DetectionBox) -> (Float, Float) { ((box.xmin + box.xmax) / 2, (box.ymin + box.ymax) / 2) }

    private func centreDistance(_ a: DetectionBox, _ b: DetectionBox) -> Float {
        let (ax, ay) = centre(a), (bx, by) = centre(b)
        return ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).squareRoot()
    }
}
