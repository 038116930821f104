// Convolution as GEMM: the problem geometry and the GemmOperands that pack
// an image's patches (im2col, one cache block at a time) or a weight in any
// dim order straight into GEMM panels.
//
// NCHW: C[oc, pixel] = W[oc, (ic, kh, kw)] * patches[(ic, kh, kw), pixel];
// channels-last: C[pixel, oc] = patches[pixel, (kh, kw, ic)] * W^T.
// Per group, with x / w pointing at the group's first channel. Operands
// borrow the data they read; Pack is safe to call concurrently.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_OPERANDS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_OPERANDS_H_

#include <cstdint>

#include "runtime/kernels/optimized/gemm.h"

namespace edgefleet {
namespace optimized {

// A 2-D convolution problem (1-D ones have in_h = k_h = out_h = 1).
struct ConvGeometry {
  int64_t batch, in_c, in_h, in_w;
  int64_t out_c, out_h, out_w;
  int64_t k_h, k_w, groups;
  int64_t stride[2], pad[2], dilation[2];  // [h, w]

  int64_t in_c_per_group() const { return in_c / groups; }
  int64_t out_c_per_group() const { return out_c / groups; }
  int64_t taps() const { return k_h * k_w; }
  int64_t out_pixels() const { return out_h * out_w; }
  bool pointwise() const {  // 1x1, stride 1, no padding
    return k_h == 1 && k_w == 1 && stride[0] == 1 && stride[1] == 1 && pad[0] == 0 && pad[1] == 0;
  }
};

// The first window position from `start` (negative: in the padding) that
// is inside the input, stepping by the dilation, as the portable pooling
// kernels clamp it.
inline int64_t FirstValid(int64_t start, int64_t dilation) {
  return start >= 0 ? start : start + (-start + dilation - 1) / dilation * dilation;
}

// First and one-past-last output index o with 0 <= o * s + offset < in.
void ValidOutputRange(int64_t in, int64_t out, int64_t s, int64_t offset, int64_t* lo, int64_t* hi);

// The interior output columns [lo, hi) of g: those whose every kernel column
// tap lies inside the input row (ow * s - p >= 0 and ow * s - p + (k_w - 1)
// * d < in_w), so the direct kernels read them without bounds checks.
void InteriorColumns(const ConvGeometry& g, int64_t* lo, int64_t* hi);

// The taps (kh * k_w + kw) a convolution's GEMM depth runs over, per input
// channel: all of them, or only those whose window meets the input for at
// least one output. The others read padding only (a dilated conv on a small
// input, e.g. DeepLab's ASPP), so leaving them out drops exact zeros.
struct TapList {
  static constexpr int64_t kMax = 64;
  int64_t count = 0;
  bool all = true;
  int64_t taps[kMax] = {};

  // Every tap of g (any number).
  static TapList All(const ConvGeometry& g);
  // The taps of g that meet the input; all of them if g has more than kMax.
  static TapList Used(const ConvGeometry& g);
  int64_t tap(int64_t i) const { return all ? i : taps[i]; }
};

// B for NCHW: element(pixel, (ic, kh, kw)) of one image and group. `x`
// points at channel 0 of the group in a contiguous C x H x W image.
class Im2colNchw final : public GemmOperand {
 public:
  // Depth (ic, t) over the taps of `taps`.
  Im2colNchw(const ConvGeometry& g, const TapList& taps, const float* x)
      : g_(g), taps_(taps), x_(x) {}
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;

 private:
  const ConvGeometry& g_;
  const TapList& taps_;
  const float* x_;
};

// B for NCHW read in place: one image's group channels copied once,
// zero-padded and split by stride phase (rows and columns), so that for
// every tap the patches of all output pixels are one contiguous run. The
// GEMM's columns are j = oh * row_len() + ow for ow < row_len(): columns
// with ow >= out_w are junk (computed, then dropped by the caller).
class PhasedImage final : public GemmOperand {
 public:
  static constexpr int64_t kMaxTaps = TapList::kMax;

  // Depth (ic, t) over the taps of `taps`. REQUIRES: taps.count <= kMaxTaps.
  PhasedImage(const ConvGeometry& g, const TapList& taps);

  int64_t row_len() const { return row_len_; }
  int64_t columns() const { return g_.out_h * row_len_; }
  // Floats of the copy (set_data's buffer), tail padding included.
  int64_t floats() const;
  // Copies the group's channels of one image (`x`: channel 0 of the group
  // in a contiguous C x H x W image) into `data`.
  void Build(const float* x, float* data);

  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;
  bool Rows(int64_t f0, int64_t k0, int64_t nk, const float** rows) const override;

 private:
  const float* Row(int64_t k) const {
    return data_ + tap_base_[k % num_taps_] + k / num_taps_ * plane_;
  }

  const ConvGeometry& g_;
  int64_t num_taps_;
  int64_t rows_, row_len_, plane_;
  int num_phases_ = 0;
  int64_t phase_h_[kMaxTaps], phase_w_[kMaxTaps];  // used phases
  int64_t tap_base_[kMaxTaps];                     // offset of a tap's run for channel 0
  const float* data_ = nullptr;
};

// A for channels-last: element(pixel, (kh, kw, ic)) of one image and
// group. `x` points at channel 0 of the group in an H x W x C image.
class Im2colNhwc final : public GemmOperand {
 public:
  Im2colNhwc(const ConvGeometry& g, const float* x) : g_(g), x_(x) {}
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;
  // The rest of the group's channels under k0's tap: a pixel's channels
  // are contiguous.
  int64_t RowRun(int64_t k0) const override {
    return g_.in_c_per_group() - k0 % g_.in_c_per_group();
  }
  void RowPointers(int64_t f0, int64_t nf, int64_t k0, const float* zeros,
                   const float** rows) const override;

 private:
  const ConvGeometry& g_;
  const float* x_;
};

// A weight [oc, ic, kh, kw] with any strides as element(oc, depth), the
// depth running over (ic, t) or, with `taps_outer`, (t, ic), t over `taps`.
// `w` points at the group's first output channel.
class ConvWeight final : public GemmOperand {
 public:
  ConvWeight(const ConvGeometry& g, const TapList& taps, const float* w, const int64_t* strides,
             bool taps_outer)
      : g_(g), taps_(taps), w_(w), taps_outer_(taps_outer) {
    for (int i = 0; i < 4; ++i) s_[i] = strides[i];
  }
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;

 private:
  const ConvGeometry& g_;
  const TapList& taps_;
  const float* w_;
  int64_t s_[4];  // oc, ic, kh, kw
  bool taps_outer_;
};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_OPERANDS_H_
