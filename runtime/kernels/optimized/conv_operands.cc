#include "runtime/kernels/optimized/conv_operands.h"

#include <algorithm>
#include <cstring>

namespace edgefleet {
namespace optimized {

void ValidOutputRange(int64_t in, int64_t out, int64_t s, int64_t offset, int64_t* lo,
                      int64_t* hi) {
  // o * s >= -offset and o * s < in - offset.
  *lo = offset >= 0 ? 0 : (-offset + s - 1) / s;
  const int64_t end = in - offset;
  *hi = end <= 0 ? 0 : std::min(out, (end + s - 1) / s);
  if (*hi < *lo) *hi = *lo;
  if (*lo > out) *lo = *hi = out;
}

void InteriorColumns(const ConvGeometry& g, int64_t* lo, int64_t* hi) {
  const int64_t span = (g.k_w - 1) * g.dilation[1];
  ValidOutputRange(g.in_w - span, g.out_w, g.stride[1], -g.pad[1], lo, hi);
}

TapList TapList::All(const ConvGeometry& g) {
  TapList list;
  list.count = g.taps();
  return list;
}

TapList TapList::Used(const ConvGeometry& g) {
  TapList list = All(g);
  if (g.taps() > kMax) return list;
  list.count = 0;
  list.all = false;
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    int64_t h_lo, h_hi;
    ValidOutputRange(g.in_h, g.out_h, g.stride[0], kh * g.dilation[0] - g.pad[0], &h_lo, &h_hi);
    if (h_lo >= h_hi) continue;
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      int64_t w_lo, w_hi;
      ValidOutputRange(g.in_w, g.out_w, g.stride[1], kw * g.dilation[1] - g.pad[1], &w_lo, &w_hi);
      if (w_lo < w_hi) list.taps[list.count++] = kh * g.k_w + kw;
    }
  }
  list.all = list.count == g.taps();
  return list;
}

void Im2colNchw::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const {
  const ConvGeometry& g = g_;
  const int64_t plane = g.in_h * g.in_w;
  const int64_t taps = taps_.count;
  for (int64_t kk = 0; kk < nk; ++kk) {
    const int64_t k = k0 + kk;
    const int64_t ic = k / taps, tap = taps_.tap(k % taps);
    const int64_t kh = tap / g.k_w, kw = tap % g.k_w;
    const float* image = x_ + ic * plane;
    const int64_t h_off = kh * g.dilation[0] - g.pad[0];
    const int64_t w_off = kw * g.dilation[1] - g.pad[1];
    const int64_t sw = g.stride[1];
    int64_t ow_lo, ow_hi;
    ValidOutputRange(g.in_w, g.out_w, sw, w_off, &ow_lo, &ow_hi);
    int64_t oh = f0 / g.out_w, ow = f0 % g.out_w;
    for (int64_t c = 0; c < nf;) {
      const int64_t ih = oh * g.stride[0] + h_off;
      const bool row_ok = ih >= 0 && ih < g.in_h;
      const float* row = row_ok ? image + ih * g.in_w : nullptr;
      // Columns of this output row, one panel segment at a time.
      int64_t run = std::min(g.out_w - ow, nf - c);
      while (run > 0) {
        const int64_t lane = c % width;
        const int64_t seg = std::min<int64_t>(run, width - lane);
        float* d = dst + ((c / width) * nk + kk) * width + lane;
        if (!row_ok) {
          std::fill(d, d + seg, 0.0f);
        } else {
          const int64_t a = std::clamp(ow_lo, ow, ow + seg);
          const int64_t b = std::clamp(ow_hi, a, ow + seg);
          std::fill(d, d + (a - ow), 0.0f);
          if (sw == 1) {
            std::memcpy(d + (a - ow), row + a + w_off, sizeof(float) * (b - a));
          } else {
            for (int64_t o = a; o < b; ++o) d[o - ow] = row[o * sw + w_off];
          }
          std::fill(d + (b - ow), d + seg, 0.0f);
        }
        c += seg;
        ow += seg;
        run -= seg;
      }
      if (ow == g.out_w) {
        ow = 0;
        ++oh;
      }
    }
  }
  const int64_t tail = nf % width;
  if (tail != 0) {
    float* last = dst + (nf / width) * nk * width;
    for (int64_t kk = 0; kk < nk; ++kk) {
      std::fill(last + kk * width + tail, last + (kk + 1) * width, 0.0f);
    }
  }
}

PhasedImage::PhasedImage(const ConvGeometry& g, const TapList& taps)
    : g_(g), num_taps_(taps.count) {
  const int64_t sh = g.stride[0], sw = g.stride[1];
  rows_ = (g.in_h + 2 * g.pad[0] + sh - 1) / sh;
  row_len_ = (g.in_w + 2 * g.pad[1] + sw - 1) / sw;
  plane_ = rows_ * row_len_;
  for (int64_t i = 0; i < num_taps_; ++i) {
    const int64_t t = taps.tap(i);
    const int64_t dh = t / g.k_w * g.dilation[0];
    const int64_t dw = t % g.k_w * g.dilation[1];
    int u = 0;
    while (u < num_phases_ && (phase_h_[u] != dh % sh || phase_w_[u] != dw % sw)) {
      ++u;
    }
    if (u == num_phases_) {
      phase_h_[u] = dh % sh;
      phase_w_[u] = dw % sw;
      ++num_phases_;
    }
    tap_base_[i] = u * g.in_c_per_group() * plane_ + dh / sh * row_len_ + dw / sw;
  }
}

int64_t PhasedImage::floats() const {
  return num_phases_ * g_.in_c_per_group() * plane_ + row_len_;
}

void PhasedImage::Build(const float* x, float* data) {
  data_ = data;
  const ConvGeometry& g = g_;
  const int64_t sh = g.stride[0], sw = g.stride[1];
  const int64_t cin_g = g.in_c_per_group();
  for (int u = 0; u < num_phases_; ++u) {
    // Output column c reads input column c * sw + phase - pad.
    int64_t c_lo, c_hi;
    ValidOutputRange(g.in_w, row_len_, sw, phase_w_[u] - g.pad[1], &c_lo, &c_hi);
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      const float* image = x + ic * g.in_h * g.in_w;
      float* out = data + (u * cin_g + ic) * plane_;
      for (int64_t r = 0; r < rows_; ++r) {
        float* d = out + r * row_len_;
        const int64_t ih = r * sh + phase_h_[u] - g.pad[0];
        if (ih < 0 || ih >= g.in_h) {
          std::fill(d, d + row_len_, 0.0f);
          continue;
        }
        const float* src = image + ih * g.in_w;
        const int64_t off = phase_w_[u] - g.pad[1];
        std::fill(d, d + c_lo, 0.0f);
        if (sw == 1) {
          std::memcpy(d + c_lo, src + c_lo + off, sizeof(float) * (c_hi - c_lo));
        } else {
          for (int64_t c = c_lo; c < c_hi; ++c) d[c] = src[c * sw + off];
        }
        std::fill(d + c_hi, d + row_len_, 0.0f);
      }
    }
  }
  float* tail = data + num_phases_ * cin_g * plane_;
  std::fill(tail, tail + row_len_, 0.0f);
}

void PhasedImage::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width,
                       float* dst) const {
  for (int64_t p = 0; p * width < nf; ++p) {
    const int64_t cols = std::min<int64_t>(width, nf - p * width);
    float* d = dst + p * nk * width;
    for (int64_t kk = 0; kk < nk; ++kk) {
      const float* src = Row(k0 + kk) + f0 + p * width;
      std::memcpy(d + kk * width, src, sizeof(float) * cols);
      std::fill(d + kk * width + cols, d + (kk + 1) * width, 0.0f);
    }
  }
}

bool PhasedImage::Rows(int64_t f0, int64_t k0, int64_t nk, const float** rows) const {
  for (int64_t kk = 0; kk < nk; ++kk) rows[kk] = Row(k0 + kk) + f0;
  return true;
}

void Im2colNhwc::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const {
  const ConvGeometry& g = g_;
  const int64_t cin_g = g.in_c_per_group();
  for (int64_t p = 0; p * width < nf; ++p) {
    float* d = dst + p * nk * width;
    for (int lane = 0; lane < width; ++lane) {
      const int64_t c = p * width + lane;
      if (c >= nf) {
        for (int64_t kk = 0; kk < nk; ++kk) d[kk * width + lane] = 0.0f;
        continue;
      }
      const int64_t pixel = f0 + c;
      const int64_t oh = pixel / g.out_w, ow = pixel % g.out_w;
      for (int64_t kk = 0; kk < nk;) {
        const int64_t k = k0 + kk;
        const int64_t tap = k / cin_g, ic = k % cin_g;
        const int64_t run = std::min(cin_g - ic, nk - kk);
        const int64_t ih = oh * g.stride[0] - g.pad[0] + tap / g.k_w * g.dilation[0];
        const int64_t iw = ow * g.stride[1] - g.pad[1] + tap % g.k_w * g.dilation[1];
        float* o = d + kk * width + lane;
        if (ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w) {
          const float* src = x_ + (ih * g.in_w + iw) * g.in_c + ic;
          for (int64_t u = 0; u < run; ++u) o[u * width] = src[u];
        } else {
          for (int64_t u = 0; u < run; ++u) o[u * width] = 0.0f;
        }
        kk += run;
      }
    }
  }
}

void Im2colNhwc::RowPointers(int64_t f0, int64_t nf, int64_t k0, const float* zeros,
                             const float** rows) const {
  const ConvGeometry& g = g_;
  const int64_t cin_g = g.in_c_per_group();
  const int64_t tap = k0 / cin_g, ic = k0 % cin_g;
  const int64_t dh = tap / g.k_w * g.dilation[0] - g.pad[0];
  const int64_t dw = tap % g.k_w * g.dilation[1] - g.pad[1];
  int64_t oh = f0 / g.out_w, ow = f0 % g.out_w;
  for (int64_t f = 0; f < nf; ++f) {
    const int64_t ih = oh * g.stride[0] + dh, iw = ow * g.stride[1] + dw;
    rows[f] = ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w
                  ? x_ + (ih * g.in_w + iw) * g.in_c + ic
                  : zeros;
    if (++ow == g.out_w) {
      ow = 0;
      ++oh;
    }
  }
}

void ConvWeight::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const {
  const int64_t cin_g = g_.in_c_per_group();
  const int64_t taps = taps_.count;
  for (int64_t p = 0; p * width < nf; ++p) {
    float* d = dst + p * nk * width;
    for (int64_t kk = 0; kk < nk; ++kk) {
      const int64_t k = k0 + kk;
      const int64_t ic = taps_outer_ ? k % cin_g : k / taps;
      const int64_t tap = taps_.tap(taps_outer_ ? k / cin_g : k % taps);
      const float* src = w_ + ic * s_[1] + tap / g_.k_w * s_[2] + tap % g_.k_w * s_[3];
      for (int lane = 0; lane < width; ++lane) {
        const int64_t f = p * width + lane;
        d[kk * width + lane] = f < nf ? src[(f0 + f) * s_[0]] : 0.0f;
      }
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet
