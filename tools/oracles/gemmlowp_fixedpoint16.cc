// Prints gemmlowp's 16-bit logistic and tanh for every int16 input, the functions TensorFlow Lite's integer
// LSTM applies (tensor_utils::ApplySigmoid: FixedPoint<int16_t, 3> -> F0; ApplyTanh<IntegerBits>: F_k -> F0).
// Built and run by tools/make_fixedpoint_goldens.py against the gemmlowp headers shipped in TensorFlow's wheel.
#include <cstdint>
#include <cstdio>
#include "fixedpoint/fixedpoint.h"

template <int Bits>
void PrintTanh() {
  std::printf("tanh_f%d", Bits);
  for (int i = 0; i < 65536; ++i) {
    auto x = gemmlowp::FixedPoint<std::int16_t, Bits>::FromRaw(static_cast<std::int16_t>(i));
    std::printf(" %d", gemmlowp::tanh(x).raw());
  }
  std::printf("\n");
}

int main() {
  std::printf("sigmoid_f3");
  for (int i = 0; i < 65536; ++i) {
    auto x = gemmlowp::FixedPoint<std::int16_t, 3>::FromRaw(static_cast<std::int16_t>(i));
    std::printf(" %d", gemmlowp::logistic(x).raw());
  }
  std::printf("\n");
  PrintTanh<0>(); PrintTanh<1>(); PrintTanh<2>(); PrintTanh<3>(); PrintTanh<4>(); PrintTanh<5>(); PrintTanh<6>();
  return 0;
}
