// Int8 GEMM with requantization, for the fused quantized convolution and
// linear kernels (quantized_conv.h).
//
//   C[i][j] = requantize(sum_k A[i][k] * (B[k][j] - zb) )
//
// A (weights, int8) is packed once at method load: rows of depth_padded
// bytes (a multiple of 4, zero padded), row count a multiple of kQGemmMr
// (zero rows). B (activations, int8 with zero point zb) is packed per call
// by QGemmPackB into panels of kQGemmNr columns, each panel k4-major:
// panel[k / 4][j][k % 4] = B[k][j] + 128 as uint8 (zeros past the edges).
// The micro-kernels multiply unsigned by signed bytes (VPDPBUSD), so the sum
// holds sum_k A[i][k] * (B[k][j] + 128); the caller folds -(128 + zb) *
// sum_k A[i][k] into `correction[i]`.
//
// Requantization is the float chain of dequantize -> float op -> quantize:
//   v = float(acc + correction[i]) * scale[i] + bias[i]
//   q = clamp(round_half_even(v * inv_out_scale) + out_zero_point, lo, hi)
// with separate multiply and add, as the portable kernels compute it: when
// every product is exact (power-of-two scales) the result is bit-identical
// to the dequantize -> convolution -> quantize chain.
//
// Micro-kernels: AVX-512 VNNI (6 x 64), AVX-VNNI (3 x 32, ymm) and a
// portable one, chosen at run time (HostInt8Dot(), capped by ForceIsa).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMM_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMM_H_

#include <cstddef>
#include <cstdint>

namespace edgefleet {
namespace optimized {

inline constexpr int64_t kQGemmMr = 6;   // A rows are padded to this
inline constexpr int64_t kQGemmNr = 64;  // columns per packed B panel

enum class Int8Dot {
  kGeneric,  // plain C++
  kAvxVnni,  // AVX-VNNI (VEX, ymm) or AVX-512 VNNI + VL
  kAvx512Vnni,
};

// The best int8 dot-product level the host has, capped by ForceIsa()
// (kAvx2 cap: at most kAvxVnni; kGeneric cap: kGeneric).
Int8Dot HostInt8Dot();
const char* Int8DotName(Int8Dot level);

inline int64_t QGemmDepthPadded(int64_t depth) { return (depth + 3) / 4 * 4; }
inline int64_t QGemmRowsPadded(int64_t rows) { return (rows + kQGemmMr - 1) / kQGemmMr * kQGemmMr; }
// Bytes of the packed B for `depth` x `n`.
inline size_t QGemmPackedBBytes(int64_t depth, int64_t n) {
  const int64_t panels = (n + kQGemmNr - 1) / kQGemmNr;
  return static_cast<size_t>(panels * kQGemmNr * QGemmDepthPadded(depth));
}

// Packs B[k][j] = b[k * k_stride + j * j_stride] (k < depth, j < n) into
// `packed` (QGemmPackedBBytes(depth, n) bytes), panels [p0, p1).
void QGemmPackB(const int8_t* b, int64_t depth, int64_t n, int64_t k_stride, int64_t j_stride,
                uint8_t* packed, int64_t p0, int64_t p1);

struct QGemmEpilogue {
  const int32_t* correction;  // per row of A
  const float* scale;         // per row
  const float* bias;          // per row
  float inv_out_scale;
  int32_t out_zero_point;
  int32_t out_min, out_max;  // quant range, narrowed by a fused activation
  int8_t* out;               // C[i][j] at out[i * row_stride + j * col_stride]
  int64_t row_stride, col_stride;
};

// C rows [0, m) x panels [p0, p1) of the n columns. `a` has
// QGemmRowsPadded(m) rows of `depth_padded` bytes.
void QGemm(const int8_t* a, int64_t m, int64_t depth_padded, const uint8_t* packed_b, int64_t n,
           int64_t p0, int64_t p1, const QGemmEpilogue& e);

// The requantization of one value (the reference for the vector epilogues).
inline int8_t Requantize(int32_t acc, float scale, float bias, const QGemmEpilogue& e) {
  const float v = static_cast<float>(acc) * scale + bias;
  float y = v * e.inv_out_scale;
  const float lo = static_cast<float>(e.out_min - e.out_zero_point);
  const float hi = static_cast<float>(e.out_max - e.out_zero_point);
  y = y < lo ? lo : (y > hi ? hi : y);
  if (!(y == y)) y = lo;  // NaN (only from a NaN bias)
  // Round half to even: exact for |y| < 2^22, and y is within the quant range.
  y = (y + 12582912.0f) - 12582912.0f;
  return static_cast<int8_t>(static_cast<int32_t>(y) + e.out_zero_point);
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_GEMM_H_
