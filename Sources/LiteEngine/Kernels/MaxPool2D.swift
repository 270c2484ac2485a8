/// MAX_POOL_2D: the largest of each window's in-bounds values (see ``Pool2D``).
final class MaxPool2D: Pool2D {
    override var isAverage: Bool { false }
}
