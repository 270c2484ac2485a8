/// REDUCE_ALL: whether every bool over the axes is true, with keep_dims (an empty reduction is true).
final class ReduceAll: ReduceAny {
    override class var deciding: Bool { false }
}
