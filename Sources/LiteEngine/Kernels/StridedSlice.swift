import LiteFormat

/// STRIDED_SLICE with begin, end and strides (constant int32 inputs) and every mask, following
/// tensorflow/lite/kernels/strided_slice.cc: ellipsis and new-axis masks are first expanded into an
/// "effective" input shape, then each axis gets TFLite's StartForAxis/StopForAxis clamping.
final class StridedSlice: Kernel {
    override var foldsAtPlanning: Bool { true }

    let options: StridedSliceOptions
    var start: [Int] = [], step: [Int] = [], effectiveShape: [Int] = [], effectiveExtent: [Int] = []

    required init(_ node: NodeContext) throws {
        options = try StridedSliceOptions(node.options)
        try super.init(node)
        try expectCounts(inputs: 4...4, outputs: 1)
    }

    override func prepare() throws {
        let input = try self.input(0), output = try self.output(0)
        _ = try elementSize(input)
        let begin = try integers(try self.input(1)), end = try integers(try self.input(2)), strides = try integers(try self.input(3))
        guard begin.count == end.count, begin.count == strides.count, begin.count <= 31 else {
            throw KernelError.invalid("begin, end and strides have \(begin.count), \(end.count), \(strides.count) values")
        }
        let count = begin.count, inputDims = input.rank
        var addAxes = 0
        for i in 0..<count where options.ellipsisMask & (1 << i) == 0 && options.newAxisMask & (1 << i) != 0 { addAxes += 1 }
        let dims = inputDims + addAxes
        guard dims <= 8 else { throw KernelError.unsupported("\(dims) effective dimensions") }

        var ellipsisMask = 0, newAxisMask = 0, ellipsisStart = dims, expanded = 0
        var i = 0
        while i < dims {
            if options.ellipsisMask & (1 << i) != 0 {
                ellipsisStart = i
                let ellipsisEnd = max(i + 1, min(i + 1 + addAxes + inputDims - count, dims))
                expanded = ellipsisEnd - ellipsisStart - 1
                while i < ellipsisEnd { ellipsisMask |= 1 << i; i += 1 }
                continue
            }
            if i - expanded >= 0, options.newAxisMask & (1 << (i - expanded)) != 0 { newAxisMask |= 1 << i }
            i += 1
        }

        var begins = [Int](repeating: 0, count: dims), ends = begins, steps = [Int](repeating: 1, count: dims), shape = begins
        var beginMask = 0, endMask = 0, shrinkMask = 0, added = 0
        for i in 0..<dims {
            if ellipsisMask & (1 << i) != 0 {
                beginMask |= 1 << i; endMask |= 1 << i
                shape[i] = input.shape[i - added]
            } else if newAxisMask & (1 << i) != 0 {
                begins[i] = 0; ends[i] = 1
                shape[i] = 1
                added += 1
            } else if i >= count + expanded {
                beginMask |= 1 << i; endMask |= 1 << i
                shape[i] = input.shape[i - added]
            } else {
                let original = i - max(0, i > ellipsisStart ? expanded : 0)
                begins[i] = begin[original]; ends[i] = end[original]; steps[i] = strides[original]
                if options.offset { ends[i] += begins[i] }
                if options.beginMask & (1 << original) != 0 { beginMask |= 1 << i }
                if options.endMask & (1 << original) != 0 { endMask |= 1 << i }
                if options.shrinkAxisMask & (1 << original) != 0 { shrinkMask |= 1 << i }
                shape[i] = input.shape[i - added]
            }
        }

        var starts: [Int] = [], extents: [Int] = [], outShape: [Int] = []
        for axis in 0..<dims {
            let size = shape[axis], stride = steps[axis]
            guard stride != 0 else { throw KernelError.invalid("stride 0 on axis \(axis)") }
            var first = begins[axis]
            if beginMask & (1 << axis) != 0 { first = stride > 0 ? Int(Int32.min) : Int(Int32.max) }
            if first < 0 { first += size }
            first = stride > 0 ? min(max(first, 0), size) : min(max(first, -1), size - 1)
            var stop: Int
            if shrinkMask & (1 << axis) != 0 {
                stop = first + 1
            } else {
                stop = ends[axis]
                if endMask & (1 << axis) != 0 { stop = stride > 0 ? Int(Int32.max) : Int(Int32.min) }
                if stop < 0 { stop += size }
                stop = stride > 0 ? min(max(stop, 0), size) : min(max(stop, -1), size - 1)
            }
            if size == 0 { first = 0; stop = 0 }
            var extent = max(0, Int((Double(stop - first) / Double(stride)).rounded(.up)))
            if shrinkMask & (1 << axis) != 0 {
                // A shrunk axis keeps exactly the element at `first`, which clamping may have moved to `size` (a
                // positive stride) or -1 (a negative one): outside the dimension, an error as in tf.strided_slice,
                // not a read past the input. With a negative stride the one element is still taken.
                guard first >= 0, first < size else {
                    throw KernelError.invalid("shrink axis \(axis) index \(begins[axis]) is outside its dimension of \(size)")
                }
                extent = 1
            }
            starts.append(first)
            extents.append(extent)
            if shrinkMask & (1 << axis) == 0 { outShape.append(extent) }
        }
        start = starts; step = steps; effectiveShape = shape; effectiveExtent = extents
        output.type = input.type
        output.shape = outShape
    }

    override func run(_ context: RunContext) throws {
        let input = node.inputs[0]!, output = node.outputs[0]
        let strides = rowMajorStrides(effectiveShape)
        let origin = zip(start, strides).reduce(0) { $0 + max($1.0, 0) * $1.1 }
        stridedCopy(source: input.data!, start: origin, sourceStrides: zip(step, strides).map { $0 * $1 }, shape: effectiveExtent,
                    destination: output.data!, elementSize: input.type.byteSize!)
    }
}
