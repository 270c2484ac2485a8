import Foundation

/// Splits an ink into lines and puts the words of a line in reading order (beyond ML Kit, which reads one line in
/// stroke order).
enum InkLayout {
    typealias IndexedStroke = (index: Int, points: [StrokePoint])

    struct Box {
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        /// The length of the pen path the box was made from (0 for boxes grown with `add`).
        var pathLength: Float = 0
        init() {}
        init(_ points: [StrokePoint]) {
            for p in points { add(p) }
            for (a, b) in zip(points, points.dropFirst()) { pathLength += ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot() }
        }
        mutating func add(_ p: StrokePoint) {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        mutating func add(_ b: Box) {
            minX = min(minX, b.minX); maxX = max(maxX, b.maxX); minY = min(minY, b.minY); maxY = max(maxY, b.maxY)
        }
        var height: Float { maxY - minY }
        var centerY: Float { (minY + maxY) / 2 }
    }

    /// The strokes' typical height: the median stroke height, or the median weighted by the strokes' path lengths
    /// if that is larger (a word in one cursive stroke outweighs its i-dots, however big and round they are drawn),
    /// at least a tenth of the tallest stroke (so inks of dots and dashes still have a scale).
    static func typicalHeight(_ boxes: [Box]) -> Float {
        let byHeight = boxes.sorted { $0.height < $1.height }
        let total = byHeight.reduce(0) { $0 + $1.pathLength }
        var median = byHeight[byHeight.count / 2].height
        if total > 0 {
            var below: Float = 0
            for box in byHeight {
                below += box.pathLength
                if below > total / 2 { median = max(median, box.height); break }
            }
        }
        return max(median, (byHeight.last?.height ?? 0) / 10, .leastNormalMagnitude)
    }

    /// Lines, top to bottom, each in stroke order. The strokes at least a quarter as tall as the tallest are
    /// sorted by vertical centre, and a line ends where the next one starts below the line so far (overlapping
    /// it by less than a fifth of the typical height) with its centre more than 0.8 typical heights lower. A line
    /// of at most two such strokes that is narrower than 1.5 typical heights is not a line but a mark above or
    /// below one (the dot of an "i" or the point of a "!" drawn as a short stroke), and so is a line of one flat
    /// stroke (at most 3/4 of the typical height, at least twice as wide as tall) within half a typical height of
    /// a line it overlaps horizontally (the top bar of a "T", "F" or serif "I" drawn apart); marks join the
    /// nearest line. Smaller strokes (dots, dashes, crossings) then join the line nearest to their centre.
    static func lines(_ strokes: [IndexedStroke]) -> [[IndexedStroke]] {
        guard strokes.count > 1 else { return [strokes] }
        let boxes = strokes.map { Box($0.points) }
        let tallest = boxes.map(\.height).max() ?? 0
        let large = strokes.indices.filter { boxes[$0].height >= 0.25 * tallest }
        let height = typicalHeight(large.map { boxes[$0] })
        let order = large.sorted { boxes[$0].centerY < boxes[$1].centerY }
        var groups: [[Int]] = [[order[0]]]
        var extents = [boxes[order[0]]]
        for k in order.dropFirst() {
            let previousCenter = boxes[groups[groups.count - 1].last!].centerY
            if boxes[k].minY > extents[extents.count - 1].maxY - 0.2 * height, boxes[k].centerY - previousCenter > 0.8 * height {
                groups.append([k])
                extents.append(boxes[k])
            } else {
                groups[groups.count - 1].append(k)
                extents[extents.count - 1].add(boxes[k])
            }
        }
        let isSlight = groups.indices.map { g in
            let width = extents[g].maxX - extents[g].minX
            let narrow = groups[g].count <= 2 && width < 1.5 * height
            let bar = groups[g].count == 1 && extents[g].height <= 0.75 * height && width >= 2 * extents[g].height
                && groups.indices.contains { h in
                    h != g && verticalGap(extents[g], extents[h]) < 0.5 * height && horizontalOverlap(extents[g], extents[h])
                }
            return narrow || bar
        }
        if isSlight.allSatisfy({ $0 }) {
            groups = [groups.flatMap { $0 }]
            extents = [extents.dropFirst().reduce(extents[0]) { var box = $0; box.add($1); return box }]
        } else if isSlight.contains(true) {
            let lines = groups.indices.filter { !isSlight[$0] }
            var merged = lines.map { groups[$0] }
            var mergedExtents = lines.map { extents[$0] }
            for g in groups.indices where isSlight[g] {
                let nearest = lines.indices.min { a, b in
                    verticalGap(extents[g], extents[lines[a]]) < verticalGap(extents[g], extents[lines[b]])
                }!
                merged[nearest] += groups[g]
                mergedExtents[nearest].add(extents[g])
            }
            groups = merged
            extents = mergedExtents
        }
        let isLarge = Set(large)
        for k in strokes.indices where !isLarge.contains(k) {
            let y = boxes[k].centerY
            let nearest = extents.indices.min { a, b in
                func distance(_ e: Box) -> Float { y < e.minY ? e.minY - y : (y > e.maxY ? y - e.maxY : 0) }
                return distance(extents[a]) < distance(extents[b])
            }!
            groups[nearest].append(k)
        }
        return groups.map { $0.sorted().map { strokes[$0] } }
    }

    private static func verticalGap(_ a: Box, _ b: Box) -> Float {
        max(0, max(a.minY, b.minY) - min(a.maxY, b.maxY))
    }

    private static func horizontalOverlap(_ a: Box, _ b: Box) -> Bool {
        a.minX <= b.maxX && b.minX <= a.maxX
    }

    /// The line's strokes with its words in left-to-right order. Strokes are grouped into words by horizontal
    /// overlap or a gap under 0.4 typical heights; words keep their own stroke order. When the words were already
    /// written left to right (nearly always), the order is unchanged, delayed strokes included.
    static func readingOrder(_ line: [IndexedStroke]) -> [IndexedStroke] {
        guard line.count > 1 else { return line }
        let words = self.words(line).map(\.strokes)
        // Written left to right (each group begun after the groups to its left), the stroke order stays as it is,
        // delayed strokes (i-dots, t-crossings added at the end) included, as the network was trained.
        let firsts = words.map { $0.min()! }
        if firsts == firsts.sorted() { return line }
        return words.flatMap { $0.sorted() }.map { line[$0] }
    }

    /// The line's words, left to right: its strokes (indices into `line`) grouped by horizontal overlap or a gap
    /// under 0.4 typical heights, with their box.
    static func words(_ line: [IndexedStroke]) -> [(strokes: [Int], box: Box)] {
        let boxes = line.map { Box($0.points) }
        let gap = 0.4 * typicalHeight(boxes)
        let byLeft = line.indices.sorted { boxes[$0].minX < boxes[$1].minX }
        var words: [(strokes: [Int], box: Box)] = []
        var right = -Float.infinity
        for k in byLeft {
            if words.isEmpty || boxes[k].minX > right + gap {
                words.append(([k], boxes[k]))
                right = boxes[k].maxX
            } else {
                words[words.count - 1].strokes.append(k)
                words[words.count - 1].box.add(boxes[k])
                right = max(right, boxes[k].maxX)
            }
        }
        return words
    }

    /// A line (in reading order) cut between words into pieces, left to right, each no wider than
    /// `widthOverHeight` times its own height unless it is one word; the strokes keep their order within a piece.
    /// The features scale an ink wider than 10 heights down as a whole (``InkFeatures/minimumWidthFraction``), and
    /// the network was trained on words and on lines of two to four words scaled so; a longer line read in one
    /// piece is read at a fraction of its size and its words run together (eight words of a held-out writer:
    /// "able acid act" read "allectort"). 15 heights keeps every held-out word whole (at 10, some wide ones were
    /// cut and the test writers' CER went from 7.04% to 7.22%). A piece that grows too wide is cut at its widest
    /// gap: where the letters of a printed word stand apart, the gaps between words are still wider.
    static func pieces(_ line: [IndexedStroke], widthOverHeight: Float = 15) -> [[IndexedStroke]] {
        guard line.count > 1 else { return [line] }
        let words = self.words(line)
        // The gap before each word: from the right edge of everything to its left.
        var gaps = [Float](repeating: 0, count: words.count)
        var right = words[0].box.maxX
        for w in words.indices.dropFirst() {
            gaps[w] = words[w].box.minX - right
            right = max(right, words[w].box.maxX)
        }
        var starts = [0]
        var box = words[0].box
        for w in words.indices.dropFirst() {
            box.add(words[w].box)
            while w > starts.last!, box.maxX - box.minX > widthOverHeight * box.height {
                let cut = ((starts.last! + 1)...w).max { gaps[$0] < gaps[$1] }!
                starts.append(cut)
                box = Box()
                for v in cut...w { box.add(words[v].box) }
            }
        }
        guard starts.count > 1 else { return [line] }
        var pieceOfStroke = [Int](repeating: 0, count: line.count)
        for (piece, start) in starts.enumerated() {
            let end = piece + 1 < starts.count ? starts[piece + 1] : words.count
            for w in start..<end { for k in words[w].strokes { pieceOfStroke[k] = piece } }
        }
        var pieces = [[IndexedStroke]](repeating: [], count: starts.count)
        for (k, stroke) in line.enumerated() { pieces[pieceOfStroke[k]].append(stroke) }
        return pieces
    }
}
