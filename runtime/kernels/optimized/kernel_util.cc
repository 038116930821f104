#include "runtime/kernels/optimized/kernel_util.h"

namespace edgefleet {
namespace optimized {

Tensor* PeekTensor(Span<EValue* const> args, size_t i) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_tensor()) {
    return nullptr;
  }
  Tensor* t = args[i]->tensor_ptr();
  if (t == nullptr || t->dim() < 0 || t->dim() > kMaxTensorRank || t->numel() < 0 ||
      (t->data() == nullptr && t->numel() > 0)) {
    return nullptr;
  }
  return t;
}

Tensor* PeekFloatTensor(Span<EValue* const> args, size_t i) {
  Tensor* t = PeekTensor(args, i);
  return t != nullptr && t->dtype() == ScalarType::kFloat ? t : nullptr;
}

bool PeekNone(Span<EValue* const> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_none();
}

bool PeekScalar(Span<EValue* const> args, size_t i, Scalar* value) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_scalar()) {
    return false;
  }
  *value = args[i]->to_scalar();
  return true;
}

bool PeekInt(Span<EValue* const> args, size_t i, int64_t* value) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_int()) {
    return false;
  }
  *value = args[i]->to_int();
  return true;
}

bool PeekBool(Span<EValue* const> args, size_t i, bool* value) {
  if (i >= args.size() || args[i] == nullptr || !args[i]->is_bool()) {
    return false;
  }
  *value = args[i]->to_bool();
  return true;
}

bool PeekIntList(Span<EValue* const> args, size_t i, Span<const int64_t>* list) {
  if (i >= args.size() || args[i] == nullptr || args[i]->tag() != Tag::kListInt) {
    return false;
  }
  *list = args[i]->to_int_list().Get();
  return true;
}

bool IsChannelsLast(const Tensor& t) {
  if (t.dim() != 4) return false;
  const Span<const uint8_t> order = t.dim_order();
  return order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1;
}

bool SameDimOrder(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.dim_order()[d] != b.dim_order()[d]) return false;
  }
  return true;
}

bool SameSizes(const Tensor& t, Span<const int32_t> sizes) {
  if (static_cast<size_t>(t.dim()) != sizes.size()) return false;
  for (int d = 0; d < t.dim(); ++d) {
    if (t.size(d) != sizes[d]) return false;
  }
  return true;
}

bool FitOut(Tensor& out, Span<const int32_t> sizes, Span<const Tensor* const> inputs) {
  if (SameSizes(out, sizes)) return true;
  for (const Tensor* in : inputs) {
    if (in == &out) return false;
  }
  if (out.Resize(sizes) != Error::kOk) return false;
  return out.numel() == 0 || out.data() != nullptr;
}

bool Overlaps(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const char* a0 = static_cast<const char*>(a.data());
  const char* b0 = static_cast<const char*>(b.data());
  return a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

void DimsByDecreasingStride(const int64_t* strides, int dim, int* order) {
  for (int d = 0; d < dim; ++d) {  // insertion sort: stable, at most 16 dims
    int j = d;
    for (; j > 0 && strides[order[j - 1]] < strides[d]; --j) order[j] = order[j - 1];
    order[j] = d;
  }
}

}  // namespace optimized
}  // namespace edgefleet
