"""LSTM forms no converter emits from Keras (written with the schema), and Keras 2 LSTMs quantized to integer and hybrid form."""
from .common import case
from .builders import built_bilstm, built_lstm
from .recurrent import keras_sequence_model, lstm_layer


case("lstm_peephole_projection_clips", [(2, 6, 5)], built=True, low=-1, high=1)(
    built_lstm(6, 2, 5, 8, outputs=4, peephole=True, projection=True, cell_clip=0.7, proj_clip=0.5))
case("lstm_cifg_layer_norm", [(1, 7, 4)], built=True, low=-1, high=1)(built_lstm(7, 1, 4, 6, cifg=True, layer_norm=True))
case("lstm_time_major_peephole_layer_norm_projection", [(5, 3, 3)], built=True, low=-1, high=1)(
    built_lstm(5, 3, 3, 7, outputs=5, time_major=True, peephole=True, layer_norm=True, projection=True, projection_bias=False, cell_clip=1.0))
case("lstm_cifg_peephole_relu6", [(2, 5, 4)], built=True, low=-1, high=1)(
    built_lstm(5, 2, 4, 6, cifg=True, peephole=True, activation="RELU6"))
case("bilstm_merged_time_major", [(6, 2, 4)], built=True, low=-1, high=1)(
    built_bilstm(6, 2, 4, dict(cells=5, outputs=3, peephole=True, projection=True), dict(cells=5, outputs=3, projection=True, projection_bias=False)))
case("bilstm_separate_batch_major_clips", [(2, 7, 3)], built=True, low=-1, high=1)(
    built_bilstm(7, 2, 3, dict(cells=4, cifg=True), dict(cells=4), merge=False, time_major=False, cell_clip=0.8, proj_clip=0.0))
case("bilstm_aux_input_backward", [(5, 1, 4), (5, 1, 4)], built=True, low=-1, high=1)(
    built_bilstm(5, 1, 4, dict(cells=4), dict(cells=4), aux_inputs=4))

# ---- quantized recurrent layers: a Keras 2 LSTM fully int8-quantized becomes TFLite's integer LSTM (int8
# weights and output state, int16 cell state, five intermediates); dynamic-range quantization makes it hybrid ----
case("q_lstm_keras_sequences_batch2", [(2, 9, 5)], keras=True, optimize="quantize_int8")(
    keras_sequence_model(9, 5, 2, lambda x: lstm_layer(7, 70, return_sequences=True)(x)))
case("q_lstm_keras_stacked", [(1, 11, 4)], keras=True, optimize="quantize_int8", low=-1.0, high=1.0)(
    keras_sequence_model(11, 4, 1, lambda x: lstm_layer(6, 80, return_sequences=True)(lstm_layer(9, 90, return_sequences=True)(x))))
# (The converter leaves tensors under 1024 elements in float, so the hybrid layer is 48 cells on 40 features.)
case("hybrid_lstm_keras", [(1, 10, 40)], keras=True, optimize="dynamic_range")(
    keras_sequence_model(10, 40, 1, lambda x: lstm_layer(48, 100, return_sequences=True)(x)))
case("hybrid_lstm_keras_batch2_last", [(2, 7, 40)], keras=True, optimize="dynamic_range")(
    keras_sequence_model(7, 40, 2, lambda x: lstm_layer(36, 110)(x)))
