// Elementwise functors for the Epilogue Visitor Tree, shared by the sm80 and sm90 backends.
// EVT instantiates ComputeFn<Array<float, N>>, so each op is a class template over the fragment type whose
// call operator maps a scalar expression over the array. Constants (slope, clamp bounds) come in a Params struct
// that the generated source defines, because C++17 has no float template arguments.
#pragma once
#include <cmath>
#include <cuda/std/limits>  // the generated Params' infinite clamp bounds (cutlass::platform's is not constexpr)

#include "cutlass/array.h"
#include "cutlass/cutlass.h"
#include "cutlass/fast_math.h"

namespace cutlassgen::epi {

#define CUTLASSGEN_UNARY(NAME, EXPR)                                                                 \
  template <class Frag, class Params = void>                                                         \
  struct NAME {                                                                                      \
    template <class T, int N>                                                                        \
    CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& in) const {      \
      cutlass::Array<T, N> out;                                                                      \
      _Pragma("unroll")                                                                              \
      for (int i = 0; i < N; ++i) {                                                                  \
        float x = static_cast<float>(in[i]);                                                         \
        out[i] = static_cast<T>(EXPR);                                                               \
      }                                                                                              \
      return out;                                                                                    \
    }                                                                                                \
  };

CUTLASSGEN_UNARY(Identity, x)
CUTLASSGEN_UNARY(Relu, x > 0.f ? x : (x == x ? 0.f : x))
// gelu with erf, as torch.nn.functional.gelu(approximate='none')
CUTLASSGEN_UNARY(Gelu, 0.5f * x * (1.f + erff(x * 0.70710678118654752f)))
// gelu with tanh, as torch.nn.functional.gelu(approximate='tanh')
CUTLASSGEN_UNARY(GeluTanh, 0.5f * x * (1.f + cutlass::fast_tanh(0.7978845608028654f * (x + 0.044715f * x * x * x))))
CUTLASSGEN_UNARY(Silu, x / (1.f + cutlass::fast_exp(-x)))
CUTLASSGEN_UNARY(Sigmoid, 1.f / (1.f + cutlass::fast_exp(-x)))
CUTLASSGEN_UNARY(Tanh, cutlass::fast_tanh(x))
CUTLASSGEN_UNARY(HardSwish, x * fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f)
CUTLASSGEN_UNARY(LeakyRelu, x >= 0.f ? x : x * Params::slope)
// clamp, and the saturation step of quantize; NaN stays NaN
CUTLASSGEN_UNARY(Clamp, x == x ? fminf(fmaxf(x, Params::lo), Params::hi) : x)

#undef CUTLASSGEN_UNARY

}  // namespace cutlassgen::epi

namespace cutlassgen::epi {
// amax: the register-level reduction of Epilogue Visitor Tree scalar reductions takes a one-parameter template.
template <class T>
using AbsMax = cutlass::maximum_absolute_value_reduction<T, /*PropagateNaN=*/true>;
}  // namespace cutlassgen::epi
