#include "runtime/kernels/portable/kernel_args.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace portable {

KernelArgs::KernelArgs(KernelContext& ctx, const char* op, Span<EValue*> args, size_t count)
    : ctx_(ctx), op_(op), args_(args) {
  if (args.size() != count) {
    Fail(Error::kInvalidArgument, "expected %zu arguments, got %zu", count, args.size());
  }
}

void KernelArgs::Fail(Error error, const char* format, ...) {
  if (!failed_) {
    char message[kMaxErrorDetail];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof(message), format, ap);
    va_end(ap);
    SetErrorDetail("%s: %s", op_, message);
  }
  failed_ = true;
  ctx_.Fail(error);
}

EValue* KernelArgs::Arg(size_t i, Tag tag, bool none_ok) {
  if (failed_) return nullptr;
  if (i >= args_.size() || args_[i] == nullptr) {
    Fail(Error::kInvalidArgument, "argument %zu is missing", i);
    return nullptr;
  }
  EValue* v = args_[i];
  if (v->tag() == tag || (none_ok && v->is_none())) return v;
  Fail(Error::kInvalidArgument, "argument %zu must be %s%s, got %s", i, TagName(tag),
       none_ok ? " or None" : "", TagName(v->tag()));
  return nullptr;
}

bool KernelArgs::CheckData(const Tensor& t, size_t i) {
  if (t.numel() < 0 || t.dim() > kMaxTensorRank) {
    Fail(Error::kInvalidArgument, "tensor argument %zu has an invalid shape", i);
    return false;
  }
  if (t.data() == nullptr && t.numel() > 0) {
    Fail(Error::kInvalidArgument, "tensor argument %zu has %lld elements but no data", i,
         static_cast<long long>(t.numel()));
    return false;
  }
  return true;
}

Tensor* KernelArgs::GetTensorAnyData(size_t i) {
  EValue* v = Arg(i, Tag::kTensor, false);
  if (v == nullptr) return nullptr;
  Tensor* t = v->tensor_ptr();
  if (t == nullptr) {
    Fail(Error::kInvalidArgument, "tensor argument %zu is null", i);
    return nullptr;
  }
  if (t->dim() < 0 || t->dim() > kMaxTensorRank) {
    Fail(Error::kInvalidArgument, "tensor argument %zu has rank %d", i, t->dim());
    return nullptr;
  }
  Remember(t);
  return t;
}

void KernelArgs::Remember(const Tensor* t) {
  if (num_seen_ < kMaxSeen) seen_[num_seen_++] = t;
}

Tensor* KernelArgs::GetTensor(size_t i) {
  Tensor* t = GetTensorAnyData(i);
  return t != nullptr && CheckData(*t, i) ? t : nullptr;
}

Tensor* KernelArgs::GetOptionalTensor(size_t i) {
  EValue* v = Arg(i, Tag::kTensor, true);
  if (v == nullptr || v->is_none()) return nullptr;
  return GetTensor(i);
}

int64_t KernelArgs::GetInt(size_t i) {
  EValue* v = Arg(i, Tag::kInt, false);
  return v != nullptr ? v->to_int() : 0;
}

bool KernelArgs::GetBool(size_t i) {
  EValue* v = Arg(i, Tag::kBool, false);
  return v != nullptr && v->to_bool();
}

double KernelArgs::GetDouble(size_t i) { return GetScalar(i).AsDouble(); }

Scalar KernelArgs::GetScalar(size_t i) {
  Scalar value{Scalar::Kind::kInt, 0, 0.0};
  GetOptionalScalar(i, &value);
  if (!failed_ && args_[i]->is_none()) {
    Fail(Error::kInvalidArgument, "argument %zu must be a Scalar, got None", i);
  }
  return value;
}

bool KernelArgs::GetOptionalScalar(size_t i, Scalar* value) {
  if (failed_) return false;
  if (i >= args_.size() || args_[i] == nullptr) {
    Fail(Error::kInvalidArgument, "argument %zu is missing", i);
    return false;
  }
  const EValue* v = args_[i];
  if (v->is_none()) return false;
  if (!v->is_scalar()) {
    Fail(Error::kInvalidArgument, "argument %zu must be a Scalar, got %s", i, TagName(v->tag()));
    return false;
  }
  *value = v->to_scalar();
  return true;
}

bool KernelArgs::GetOptionalInt(size_t i, int64_t* value) {
  EValue* v = Arg(i, Tag::kInt, true);
  if (v == nullptr || v->is_none()) return false;
  *value = v->to_int();
  return true;
}

Span<const int64_t> KernelArgs::GetIntList(size_t i) {
  Span<const int64_t> list;
  if (!GetOptionalIntList(i, &list) && !failed_) {
    Fail(Error::kInvalidArgument, "argument %zu must be IntList, got None", i);
  }
  return list;
}

bool KernelArgs::GetOptionalIntList(size_t i, Span<const int64_t>* value) {
  EValue* v = Arg(i, Tag::kListInt, true);
  if (v == nullptr || v->is_none()) return false;
  const BoxedIntList& list = v->to_int_list();
  for (size_t k = 0; k < list.size; ++k) {
    if (list.items[k] == nullptr || !list.items[k]->is_int()) {
      Fail(Error::kInvalidArgument, "IntList argument %zu has a non-Int item", i);
      return false;
    }
  }
  *value = list.Get();
  return true;
}

bool KernelArgs::GetOptionalDoubleList(size_t i, Span<const double>* value) {
  EValue* v = Arg(i, Tag::kListDouble, true);
  if (v == nullptr || v->is_none()) return false;
  *value = v->to_double_list();
  return true;
}

Span<Tensor* const> KernelArgs::GetTensorList(size_t i) {
  EValue* v = Arg(i, Tag::kListTensor, false);
  if (v == nullptr) return {};
  Span<Tensor* const> list = v->to_tensor_list().Get();
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k] == nullptr) {
      Fail(Error::kInvalidArgument,
           "TensorList argument %zu has a non-Tensor"
           " item %zu",
           i, k);
      return {};
    }
    if (!CheckData(*list[k], i)) return {};
    Remember(list[k]);
  }
  return list;
}

Span<Tensor* const> KernelArgs::GetOptionalTensorList(size_t i) {
  EValue* v = Arg(i, Tag::kListOptionalTensor, false);
  if (v == nullptr) return {};
  Span<Tensor* const> list = v->to_tensor_list().Get();
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k] == nullptr) continue;
    if (!CheckData(*list[k], i)) return {};
    Remember(list[k]);
  }
  return list;
}

bool KernelArgs::GetOptionalString(size_t i, Span<const char>* value) {
  EValue* v = Arg(i, Tag::kString, true);
  if (v == nullptr || v->is_none()) return false;
  *value = v->to_string();
  return true;
}

EValue* KernelArgs::GetRaw(size_t i) {
  if (failed_) return nullptr;
  if (i >= args_.size() || args_[i] == nullptr) {
    Fail(Error::kInvalidArgument, "argument %zu is missing", i);
    return nullptr;
  }
  return args_[i];
}

bool KernelArgs::ResizeOut(Tensor& out, Span<const int32_t> sizes, const char* name) {
  if (failed_) return false;
  bool same_shape = sizes.size() == static_cast<size_t>(out.dim());
  for (size_t d = 0; same_shape && d < sizes.size(); ++d) {
    same_shape = sizes[d] == out.size(static_cast<int>(d));
  }
  int uses = 0;
  for (int k = 0; k < num_seen_; ++k) uses += seen_[k] == &out ? 1 : 0;
  if (!same_shape && uses > 1) {
    Fail(Error::kInvalidArgument, "%s is also another argument and would change shape", name);
    return false;
  }
  const Error error = out.Resize(sizes);
  if (error != Error::kOk) {
    char reason[kMaxErrorDetail];
    snprintf(reason, sizeof(reason), "%s", LastErrorDetail());
    Fail(error, "cannot resize %s: %s", name, reason);
    return false;
  }
  if (out.data() == nullptr && out.numel() > 0) {
    Fail(Error::kInvalidArgument, "%s has %lld elements but no data", name,
         static_cast<long long>(out.numel()));
    return false;
  }
  return true;
}

bool NormalizeDim(int64_t dim, int rank, int* out) {
  const int64_t n = rank == 0 ? 1 : rank;
  if (dim < -n || dim >= n) return false;
  *out = static_cast<int>(dim < 0 ? dim + n : dim);
  return true;
}

}  // namespace portable
}  // namespace edgefleet
