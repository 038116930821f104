#include "service/op_classes.h"

#include <algorithm>
#include <vector>

namespace edgefleet {
namespace service {
namespace {

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The operator's base name: "aten::convolution.out" -> "convolution".
std::string BaseName(const std::string& name) {
  size_t start = name.rfind("::");
  start = start == std::string::npos ? 0 : start + 2;
  const size_t dot = name.find('.', start);
  return name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
}

const Tensor* TensorArg(Span<EValue* const> args, size_t i) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_tensor()) return nullptr;
  return &args[i]->to_tensor();
}

// Copies and layout changes: no arithmetic on the data.
constexpr const char* kDataMovement[] = {
    "permute",
    "cat",
    "view",
    "slice",
    "select",
    "clone",
    "copy",
    "expand",
    "squeeze",
    "unsqueeze",
    "transpose",
    "split",
    "unbind",
    "index",
    "gather",
    "pad",
    "to_dim_order",
    "clone_dim_order",
    "_to_copy",
    "repeat",
    "stack",
    "pixel_shuffle",
    "pixel_unshuffle",
    "embedding",
    "full",
    "zeros",
    "ones",
    "scalar_tensor",
    "alias",
    "as_strided",
    "narrow",
    "flip",
    "roll",
    "channel_shuffle",
    "reshape",
    "t_copy",
    "unfold",
    "scatter",
};

}  // namespace

int OpClassIndex(v1::OpClass op_class) {
  for (int i = 0; i < kNumOpClasses; ++i) {
    if (kOpClasses[i] == op_class) return i;
  }
  return -1;
}

const char* OpClassName(v1::OpClass op_class) {
  switch (op_class) {
    case v1::OP_CLASS_DENSE:
      return "dense";
    case v1::OP_CLASS_DENSE_POINTWISE:
      return "dense_pointwise";
    case v1::OP_CLASS_DENSE_3X3:
      return "dense_3x3";
    case v1::OP_CLASS_MEMORY_BOUND:
      return "memory_bound";
    case v1::OP_CLASS_ELEMENTWISE:
      return "elementwise";
    case v1::OP_CLASS_DATA_MOVEMENT:
      return "data_movement";
    case v1::OP_CLASS_OVERHEAD:
      return "overhead";
    default:
      return "unspecified";
  }
}

OpWork OperatorWork(const std::string& name, Span<EValue* const> args) {
  OpWork work;
  // Bytes: every distinct tensor argument once (an out tensor is passed
  // twice, as the out argument and the returned value).
  std::vector<const Tensor*> seen;
  const Tensor* last = nullptr;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor* t = TensorArg(args, i);
    if (t == nullptr) continue;
    last = t;
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    work.bytes += static_cast<double>(t->nbytes());
  }
  const std::string base = BaseName(name);
  if (Contains(base, "convolution") || base == "conv2d" || base == "conv1d") {
    // out[N, Cout, ...] = sum over Cin/groups x kernel window of x * w:
    // w is [Cout, Cin/groups, k...], so each output element takes
    // numel(w) / Cout multiply-adds.
    const Tensor* w = TensorArg(args, 1);
    if (w != nullptr && last != nullptr && w->dim() >= 1 && w->sizes()[0] > 0) {
      work.flops = 2.0 * static_cast<double>(last->numel()) *
                   (static_cast<double>(w->numel()) / w->sizes()[0]);
      work.compute_kernel = true;
      const Tensor* x = TensorArg(args, 0);
      bool ones = true, threes = w->dim() > 2;
      for (int d = 2; d < w->dim(); ++d) {
        ones = ones && w->sizes()[d] == 1;
        threes = threes && w->sizes()[d] == 3;
      }
      work.pointwise = ones;
      // Stride 1: the output keeps the input's spatial size (3x3, pad 1).
      bool same = x != nullptr && x->dim() == last->dim() && x->dim() == w->dim();
      for (int d = 2; same && d < x->dim(); ++d) same = x->sizes()[d] == last->sizes()[d];
      work.conv3x3_stride1 = threes && same && x->sizes()[1] == w->sizes()[1];
    }
    return work;
  }
  const bool addmm = base == "addmm" || base == "baddbmm";
  if (addmm || base == "mm" || base == "bmm" || base == "linear" || base == "matmul") {
    // out[..., M, N] = a[..., M, K] @ b[..., K, N]: K multiply-adds each.
    const Tensor* a = TensorArg(args, addmm ? 1 : 0);
    if (a != nullptr && last != nullptr && a->dim() >= 1) {
      work.flops = 2.0 * static_cast<double>(last->numel()) * a->sizes()[a->dim() - 1];
      work.compute_kernel = true;
      work.pointwise = true;
    }
    return work;
  }
  for (const char* op : kDataMovement) {
    if (Contains(base, op)) {
      work.data_movement = true;
      break;
    }
  }
  return work;
}

v1::OpClass Classify(const OpWork& work, double ridge_flops_per_byte) {
  if (work.compute_kernel) {
    const double intensity = work.bytes > 0 ? work.flops / work.bytes : work.flops;
    if (intensity < ridge_flops_per_byte) return v1::OP_CLASS_MEMORY_BOUND;
    if (work.pointwise) return v1::OP_CLASS_DENSE_POINTWISE;
    return work.conv3x3_stride1 ? v1::OP_CLASS_DENSE_3X3 : v1::OP_CLASS_DENSE;
  }
  return work.data_movement ? v1::OP_CLASS_DATA_MOVEMENT : v1::OP_CLASS_ELEMENTWISE;
}

}  // namespace service
}  // namespace edgefleet
