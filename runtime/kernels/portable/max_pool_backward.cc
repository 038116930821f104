// aten::max_pool2d_with_indices_backward.grad_input: the gradient of
// max_pool2d_with_indices with respect to its input. grad_input (self's
// shape and dtype) starts at zero and each grad_output element is added at
// the input position its index names (h * W + w within its plane), so
// overlapping windows that picked the same element accumulate, as in
// PyTorch (in the element type: float16 and bfloat16 round every sum, as
// torch does). Floating dtypes, rank 3 or 4, any dim order.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

// Fails unless grad_output and indices have the pooled shape of `self`.
bool CheckPooledShapes(KernelArgs& args, const Tensor& grad_out, const Tensor& self,
                       const Tensor& indices, const int64_t* k, const int64_t* s,
                       const int64_t* pad, const int64_t* d, bool ceil_mode) {
  if (self.dim() != 3 && self.dim() != 4) {
    args.Fail(Error::kInvalidArgument, "self must have rank 3 or 4, got %d", self.dim());
    return false;
  }
  bool ok = grad_out.dim() == self.dim() && indices.dim() == self.dim();
  for (int i = 0; ok && i < self.dim(); ++i) {
    int64_t want = self.size(i);
    const int spatial = i - (self.dim() - 2);
    if (spatial >= 0) {
      want = PoolOutSize(self.size(i), k[spatial], pad[spatial], s[spatial], d[spatial], ceil_mode);
    }
    ok = want >= 0 && grad_out.size(i) == want && indices.size(i) == want;
  }
  if (!ok) {
    args.Fail(Error::kInvalidArgument,
              "grad_output and indices must have the pooled shape of self");
  }
  return ok;
}

template <typename S>
bool ScatterGrad(const Tensor& grad_out, const Tensor& indices, Tensor& grad_in) {
  using T = OpMath<S>;
  const Planes g = PlanesOf(grad_out), ix = PlanesOf(indices);
  const Planes x = PlanesOf(grad_in);
  const S* go = grad_out.data_as<const S>();
  const int64_t* id = indices.data_as<const int64_t>();
  S* gi = grad_in.data_as<S>();
  for (int64_t n = 0; n < x.n; ++n) {
    for (int64_t c = 0; c < x.c; ++c) {
      for (int64_t h = 0; h < x.h; ++h) {
        for (int64_t w = 0; w < x.w; ++w) {
          gi[n * x.sn + c * x.sc + h * x.sh + w * x.sw] = Convert<S>(0);
        }
      }
      for (int64_t h = 0; h < g.h; ++h) {
        for (int64_t w = 0; w < g.w; ++w) {
          const int64_t i = id[n * ix.sn + c * ix.sc + h * ix.sh + w * ix.sw];
          if (i < 0 || i >= x.h * x.w) return false;
          S& target = gi[n * x.sn + c * x.sc + (i / x.w) * x.sh + (i % x.w) * x.sw];
          target = Convert<S>(Convert<T>(target) +
                              Convert<T>(go[n * g.sn + c * g.sc + h * g.sh + w * g.sw]));
        }
      }
    }
  }
  return true;
}

}  // namespace

void MaxPool2dWithIndicesBackwardGradInput(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::max_pool2d_with_indices_backward.grad_input", raw, 10);
  Tensor* grad_out = args.GetTensor(0);
  Tensor* self = args.GetTensor(1);
  Span<const int64_t> kernel_list = args.GetIntList(2);
  Span<const int64_t> stride_list = args.GetIntList(3);
  Span<const int64_t> pad_list = args.GetIntList(4);
  Span<const int64_t> dilation_list = args.GetIntList(5);
  const bool ceil_mode = args.GetBool(6);
  Tensor* indices = args.GetTensor(7);
  Tensor* grad_in = args.GetTensor(8);
  if (!args.ok()) return;
  int64_t k[2], s[2], pad[2], d[2];
  if (!MaxPoolWindow(args, kernel_list, stride_list, pad_list, dilation_list, k, s, pad, d)) {
    return;
  }
  if (!IsFloatingType(self->dtype()) || grad_out->dtype() != self->dtype() ||
      grad_in->dtype() != self->dtype() || indices->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument,
              "needs grad_output, self and grad_input of one floating dtype "
              "and int64 indices");
    return;
  }
  if (grad_in == grad_out || grad_in == indices) {
    args.Fail(Error::kInvalidArgument, "grad_input must be a distinct tensor");
    return;
  }
  if (!CheckPooledShapes(args, *grad_out, *self, *indices, k, s, pad, d, ceil_mode) ||
      !args.ResizeOut(*grad_in, self->sizes(), "grad_input")) {
    return;
  }
  if (grad_in->numel() == 0) return;
  bool in_range = true;
  SwitchFloatingElement(self->dtype(), [&](auto tag) {
    in_range = ScatterGrad<decltype(tag)>(*grad_out, *indices, *grad_in);
  });
  if (!in_range) {
    args.Fail(Error::kInvalidArgument, "an index is outside its %d x %d input plane",
              self->size(self->dim() - 2), self->size(self->dim() - 1));
  }
}

}  // namespace portable
}  // namespace edgefleet
