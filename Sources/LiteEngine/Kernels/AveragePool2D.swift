/// AVERAGE_POOL_2D: the mean of each window's in-bounds values (see ``Pool2D``).
final class AveragePool2D: Pool2D {
    override var isAverage: Bool { true }
}
