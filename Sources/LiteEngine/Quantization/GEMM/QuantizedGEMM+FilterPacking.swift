/// The VNNI GEMM's filter, packed once at load in the order the microkernels read it.
extension QuantizedGEMM {
    /// Writes the filter in the microkernels' order (see the type's documentation): per group of four 16-channel
    /// blocks, per four-deep step of the depth, each block's 16 channels' four bytes, XOR `flip`; the depth past
    /// `depth` and the channels past `channels` stay 0. The output is written in order, four bytes at a time.
    static func pack(_ source: UnsafePointer<UInt8>, channels: Int, depth: Int, flip: UInt8, blocks: Int, paddedDepth: Int,
                     into weights: UnsafeMutableRawPointer) {
        let flipWord = UInt32(flip) &* 0x0101_0101
        let fullSteps = depth / 4, steps = paddedDepth / 4
        var offset = 0
        var firstBlock = 0
        while firstBlock < blocks {
            let groupBlocks = min(blocksPerGroup, blocks - firstBlock)
            for step in 0..<steps {
                for block in firstBlock..<firstBlock + groupBlocks {
                    for lane in 0..<lanes {
                        let c = block &* lanes &+ lane
                        var word: UInt32 = 0
                        if c < channels {
                            let row = source + (c &* depth &+ step &* 4)
                            if step < fullSteps {
                                word = UnsafeRawPointer(row).loadUnaligned(as: UInt32.self) ^ flipWord
                            } else {
                                for i in 0..<(depth &- step &* 4) { word |= UInt32(row[i] ^ flip) << (8 &* UInt32(i)) }
                            }
                        }
                        weights.storeBytes(of: word, toByteOffset: offset, as: UInt32.self)
                        offset &+= 4
                    }
                }
            }
            firstBlock += groupBlocks
        }
    }
}
