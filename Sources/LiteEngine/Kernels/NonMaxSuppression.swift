import Foundation

/// NON_MAX_SUPPRESSION_V4 (`tf.image.non_max_suppression`, with or without a score threshold) and
/// NON_MAX_SUPPRESSION_V5 (`tf.image.non_max_suppression_with_scores`: Soft-NMS with a Gaussian weight).
///
/// Inputs: boxes `[n, 4]` as `[y1, x1, y2, x2]` (either corner first), scores `[n]`, the most boxes to select (an int32
/// scalar known when planning), the IoU threshold, the score threshold and, for V5, Soft-NMS's sigma (float32
/// scalars, read when running). Outputs: the selected box indices, `[max_output_size]` with the unused tail zero;
/// for V5 their scores (decayed by Soft-NMS) with a zero tail; the number selected (an int32 scalar).
///
/// float32 only, as the LiteRT these goldens come from (2.3). TFLite's kernel (`reference_ops::NonMaxSuppression`)
/// takes boxes from a `std::priority_queue` ordered by score alone, so which of two equal scores comes first is
/// decided by libstdc++'s heap algorithm; ``CandidateHeap`` repeats that algorithm step for step so ties select the
/// same boxes (TensorFlow's own kernel breaks ties by the lower index and can differ from TFLite there).
class NonMaxSuppression: Kernel {
    /// The most boxes one node may select (a hostile max_output_size must not ask for unbounded memory).
    static let maximumOutputSize = 1 << 26

    var isSoft: Bool { false }
    var maximumOutput = 0

    required init(_ node: NodeContext) throws {
        try super.init(node)
        try expectCounts(inputs: isSoft ? 6...6 : 5...5, outputs: isSoft ? 3 : 2)
    }

    override func prepare() throws {
        let boxes = try input(0), scores = try input(1)
        try expectType(boxes, .float32)
        try expectType(scores, .float32)
        guard boxes.rank == 2, boxes.dim(1) == 4 else { throw KernelError.invalid("boxes must be [n, 4], are \(boxes.shape)") }
        guard scores.shape == [boxes.dim(0)] else { throw KernelError.invalid("scores must be [\(boxes.dim(0))], are \(scores.shape)") }
        let sizeTensor = try input(2)
        guard sizeTensor.type == .int32, sizeTensor.rank == 0 else {
            throw KernelError.invalid("max_output_size must be an int32 scalar, is \(sizeTensor.type) \(sizeTensor.shape)")
        }
        let size = try integers(sizeTensor)[0]
        guard size >= 0 else { throw KernelError.invalid("max_output_size \(size) is negative") }
        guard size <= Self.maximumOutputSize else { throw KernelError.unsupported("max_output_size \(size) (at most \(Self.maximumOutputSize))") }
        maximumOutput = size
        for i in 3..<(isSoft ? 6 : 5) {
            let scalar = try input(i)
            try expectType(scalar, .float32)
            guard scalar.rank == 0 else { throw KernelError.invalid("input \(i) must be a scalar, is \(scalar.shape)") }
        }
        let indices = try output(0), count = try output(isSoft ? 2 : 1)
        indices.type = .int32
        indices.shape = [size]
        count.type = .int32
        count.shape = []
        if isSoft {
            let selectedScores = try output(1)
            selectedScores.type = .float32
            selectedScores.shape = [size]
        }
    }

    override func run(_ context: RunContext) throws {
        let boxes = node.inputs[0]!, scores = node.inputs[1]!
        let iouThreshold = node.inputs[3]!.floats[0], scoreThreshold = node.inputs[4]!.floats[0]
        let sigma: Float = isSoft ? node.inputs[5]!.floats[0] : 0
        guard !(sigma < 0) else { throw KernelError.invalid("Soft-NMS sigma \(sigma) is negative") }
        let indices = node.outputs[0].pointer(Int32.self)
        let selectedScores = isSoft ? node.outputs[1].floats : nil
        let count = Self.select(boxes: UnsafePointer(boxes.floats), scores: UnsafePointer(scores.floats), boxCount: boxes.dim(0),
                                maximumOutput: maximumOutput, iouThreshold: iouThreshold, scoreThreshold: scoreThreshold,
                                sigma: sigma, indices: indices, selectedScores: selectedScores)
        node.outputs[isSoft ? 2 : 1].pointer(Int32.self)[0] = Int32(count)
        for i in count..<maximumOutput {
            indices[i] = 0
            selectedScores?[i] = 0
        }
    }

    /// Greedy (Soft-)NMS as TFLite's reference kernel runs it; returns how many boxes were selected.
    ///
    /// Each candidate leaves the heap with the highest score; it is compared with the boxes selected since it was
    /// last compared (newest first): an IoU at or above the threshold drops it, otherwise Soft-NMS multiplies its
    /// score by `exp(-0.5 · iou² / sigma)`. Unchanged, it is selected; decayed but still above the score threshold,
    /// it goes back into the heap.
    static func select(boxes: UnsafePointer<Float>, scores: UnsafePointer<Float>, boxCount: Int, maximumOutput: Int,
                       iouThreshold: Float, scoreThreshold: Float, sigma: Float,
                       indices: UnsafeMutablePointer<Int32>, selectedScores: UnsafeMutablePointer<Float>?) -> Int {
        var heap = CandidateHeap()
        for i in 0..<boxCount where scores[i] > scoreThreshold {
            heap.push(Candidate(index: i, score: scores[i], comparedUpTo: 0))
        }
        let outputCount = min(heap.count, maximumOutput)
        let scale: Float = sigma > 0 ? -0.5 / sigma : 0
        var selected = 0
        while selected < outputCount, var candidate = heap.pop() {
            let originalScore = candidate.score
            var suppressed = false
            var j = selected - 1
            while j >= candidate.comparedUpTo {
                let iou = intersectionOverUnion(boxes + 4 * candidate.index, boxes + 4 * Int(indices[j]))
                if iou >= iouThreshold {
                    suppressed = true
                    break
                }
                if sigma > 0 { candidate.score = candidate.score * expf(scale * iou * iou) }
                if candidate.score <= scoreThreshold { break }
                j -= 1
            }
            candidate.comparedUpTo = selected
            guard !suppressed else { continue }
            if candidate.score == originalScore {
                indices[selected] = Int32(candidate.index)
                selectedScores?[selected] = candidate.score
                selected += 1
            }
            if candidate.score > scoreThreshold { heap.push(candidate) }
        }
        return selected
    }

    /// IoU of two `[y1, x1, y2, x2]` boxes in TFLite's order of operations; 0 when either box has no area.
    /// `lesser`/`greater` are `std::min`/`std::max` (which keep the first operand on ties and NaN), not Swift's.
    static func intersectionOverUnion(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>) -> Float {
        func lesser(_ x: Float, _ y: Float) -> Float { y < x ? y : x }
        func greater(_ x: Float, _ y: Float) -> Float { x < y ? y : x }
        let aYMin = lesser(a[0], a[2]), aYMax = greater(a[0], a[2]), aXMin = lesser(a[1], a[3]), aXMax = greater(a[1], a[3])
        let bYMin = lesser(b[0], b[2]), bYMax = greater(b[0], b[2]), bXMin = lesser(b[1], b[3]), bXMax = greater(b[1], b[3])
        let areaA = (aYMax - aYMin) * (aXMax - aXMin), areaB = (bYMax - bYMin) * (bXMax - bXMin)
        if areaA <= 0 || areaB <= 0 { return 0 }
        let intersection = greater(lesser(aYMax, bYMax) - greater(aYMin, bYMin), 0) * greater(lesser(aXMax, bXMax) - greater(aXMin, bXMin), 0)
        let union = areaA + areaB - intersection
        return union == 0 ? 0 : intersection / union
    }

    struct Candidate {
        var index: Int
        var score: Float
        /// Selected boxes before this position have already been compared with this candidate.
        var comparedUpTo: Int
    }

    /// A max-heap by score that moves elements exactly as libstdc++'s `std::push_heap` / `std::pop_heap` do, so
    /// equal scores leave in the same order as from TFLite's `std::priority_queue`.
    struct CandidateHeap {
        private var items: [Candidate] = []
        var count: Int { items.count }

        mutating func push(_ candidate: Candidate) {
            items.append(candidate)
            siftUp(candidate, from: items.count - 1, top: 0)
        }

        /// `std::pop_heap` then `pop_back`: the last element is taken out, the top moves to the end, and the hole
        /// left at the top walks down to a leaf along the larger child (the right one unless the left is strictly
        /// larger), where the taken element is sifted up again.
        mutating func pop() -> Candidate? {
            guard let top = items.first else { return nil }
            let last = items.removeLast()
            let length = items.count
            guard length > 0 else { return top }
            var hole = 0, child = 0
            while child < (length - 1) / 2 {
                child = 2 * (child + 1)
                if items[child].score < items[child - 1].score { child -= 1 }
                items[hole] = items[child]
                hole = child
            }
            if length & 1 == 0 && child == (length - 2) / 2 {
                child = 2 * (child + 1)
                items[hole] = items[child - 1]
                hole = child - 1
            }
            siftUp(last, from: hole, top: 0)
            return top
        }

        /// `std::__push_heap`: moves parents down while they score strictly less than `candidate`.
        private mutating func siftUp(_ candidate: Candidate, from start: Int, top: Int) {
            var hole = start, parent = (hole - 1) / 2
            while hole > top && items[parent].score < candidate.score {
                items[hole] = items[parent]
                hole = parent
                parent = (hole - 1) / 2
            }
            items[hole] = candidate
        }
    }
}

/// NON_MAX_SUPPRESSION_V4: hard NMS; outputs the selected indices and their number.
final class NonMaxSuppressionV4: NonMaxSuppression {}

/// NON_MAX_SUPPRESSION_V5: Soft-NMS with sigma (0 is hard NMS); outputs the selected indices, their scores and
/// their number.
final class NonMaxSuppressionV5: NonMaxSuppression {
    override var isSoft: Bool { true }
}
