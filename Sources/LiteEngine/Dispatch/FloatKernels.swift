import CLiteKernels

extension KernelConfiguration {
    /// The float microkernels of one level, and the GEMM shape they compute (`PackedFilterGEMM` packs its filter for
    /// it). AVX2 (and FMA) kernels serve the avx2 level and, where they have no AVX-512 version, the levels above it:
    /// the LSTM step (whose lanes would compute the same values in AVX-512 registers), and the one-row GEMM (AVX
    /// registers at every level). The depthwise convolution and the sigmoid have both, with the same results.
    struct FloatKernels: @unchecked Sendable {
        /// Rows of C per GEMM tile: 6 (AVX2's 6x16) or 8 (AVX-512's 8x32).
        let gemmTileRows: Int
        /// The widest GEMM panel: 16 (AVX2) or 32 (AVX-512).
        let gemmPanelWidth: Int
        /// Whether the last panel is only as wide as its columns need (a multiple of 8): AVX-512's masked tiles.
        let gemmNarrowLastPanel: Bool
        /// A range of row tiles of C, each against a range of panels.
        let gemmTiles: lite_f32_gemm_tiles_fn
        /// The same with tiles of 7 rows (AVX-512 levels), for row counts that 7 divides and `gemmTileRows` does not.
        let gemmTiles7: lite_f32_gemm_tiles_fn?
        /// `gemmTiles` with a store epilogue applied in registers (AVX-512 levels).
        let gemmTilesStoring: lite_f32_gemm_tiles_storing_fn?
        /// `gemmTiles7` with a store epilogue applied in registers.
        let gemmTiles7Storing: lite_f32_gemm_tiles_storing_fn?
        /// One row of A against 64 columns (or a narrow last panel).
        let gemmRow: lite_f32_gemm_row_fn
        /// Rows of a float depthwise convolution.
        let depthwiseRows: lite_f32_dwconv_rows_fn
        /// Sigmoid (and SiLU) of a buffer.
        let sigmoid: lite_f32_sigmoid_fn
        /// Tanh of a buffer in place (the same values as `vectorizableTanh`).
        let tanh: lite_f32_tanh_fn
        /// The clamped sum of two rows (or one row plus zero).
        let addMinMax: lite_f32_vadd_minmax_fn
        /// The clamped sum of an operand and a channel-padded one (a folded PAD), all rows in one call.
        let addChannelPadded: lite_f32_vadd_channel_padded_fn
        /// One output row of a float RESIZE_BILINEAR.
        let resizeBilinearRow: lite_f32_resize_bilinear_row_fn
        /// One row of float SOFTMAX.
        let softmaxRow: lite_f32_softmax_row_fn
        /// PRELU with one slope per channel.
        let preluChannels: lite_f32_prelu_channels_fn
        /// One time step of a float LSTM with a tanh cell, after its matrix products: peepholes, layer norm, biases,
        /// activations, the cell and hidden states (``FloatLSTM``).
        let lstmStep: lite_f32_lstm_step_fn

        /// The kernels of `level`, or nil at baseline and on other architectures.
        init?(level: InstructionSetLevel) {
            #if arch(x86_64)
            switch level {
            case .baseline:
                return nil
            case .avx2:
                gemmTileRows = 6
                gemmPanelWidth = 16
                gemmNarrowLastPanel = false
                gemmTiles = lite_f32_gemm_6x16__avx2
                gemmTiles7 = nil
                gemmTilesStoring = nil
                gemmTiles7Storing = nil
                depthwiseRows = lite_f32_dwconv_rows__avx2
                sigmoid = lite_f32_sigmoid__avx2
            case .avx512, .avx512vnni:
                gemmTileRows = 8
                gemmPanelWidth = 32
                gemmNarrowLastPanel = true
                gemmTiles = lite_f32_gemm_8x32__avx512
                gemmTiles7 = lite_f32_gemm_7x32__avx512
                gemmTilesStoring = lite_f32_gemm_8x32_storing__avx512
                gemmTiles7Storing = lite_f32_gemm_7x32_storing__avx512
                depthwiseRows = lite_f32_dwconv_rows__avx512
                sigmoid = lite_f32_sigmoid__avx512
            }
            gemmRow = lite_f32_gemm_1x64__avx2
            tanh = lite_f32_tanh__avx2
            addMinMax = lite_f32_vadd_minmax__avx2
            addChannelPadded = lite_f32_vadd_channel_padded__avx2
            lstmStep = lite_f32_lstm_step__avx2
            preluChannels = lite_f32_prelu_channels__avx2
            softmaxRow = lite_f32_softmax_row__avx2
            resizeBilinearRow = lite_f32_resize_bilinear_row__avx2
            #else
            return nil
            #endif
        }
    }
}
