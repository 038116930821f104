// KernelArgs: checked, typed access to a kernel's boxed arguments.
//
// A kernel builds one KernelArgs over its argument span, reads every
// argument through the typed getters, then returns early if !ok(). The first
// problem (wrong count, wrong tag, tensor without data, ...) records an error
// detail prefixed with the operator name and fails the KernelContext; after
// that, getters return empty values (null tensors, zeros) and never touch an
// argument out of range. Kernels report their own checks through Fail().
//
// Borrows the context and the arguments; used by one kernel call.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_KERNEL_ARGS_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_KERNEL_ARGS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace portable {

class KernelArgs {
 public:
  // Fails unless args.size() == count (schema arguments plus return slot).
  KernelArgs(KernelContext& ctx, const char* op, Span<EValue*> args, size_t count);
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;

  bool ok() const { return !failed_; }
  const char* op() const { return op_; }
  KernelContext& context() { return ctx_; }

  // A tensor whose data is non-null unless it has no elements.
  Tensor* GetTensor(size_t i);
  // As GetTensor, but the data pointer may be null (outputs whose memory the
  // kernel sets, e.g. et_view).
  Tensor* GetTensorAnyData(size_t i);
  // nullptr if the argument is None.
  Tensor* GetOptionalTensor(size_t i);
  int64_t GetInt(size_t i);
  bool GetBool(size_t i);
  // A Double, or an Int/Bool converted to double.
  double GetDouble(size_t i);
  Scalar GetScalar(size_t i);
  // Returns false (and leaves *value unchanged) if the argument is None.
  bool GetOptionalScalar(size_t i, Scalar* value);
  bool GetOptionalInt(size_t i, int64_t* value);
  Span<const int64_t> GetIntList(size_t i);
  // Returns false if the argument is None.
  bool GetOptionalIntList(size_t i, Span<const int64_t>* value);
  // Returns false if the argument is None.
  bool GetOptionalDoubleList(size_t i, Span<const double>* value);
  // Every entry is a non-null tensor satisfying GetTensor's data rule.
  Span<Tensor* const> GetTensorList(size_t i);
  // An optional-tensor list: null entries are None; the others satisfy
  // GetTensor's data rule.
  Span<Tensor* const> GetOptionalTensorList(size_t i);
  // Returns false if the argument is None.
  bool GetOptionalString(size_t i, Span<const char>* value);
  // The argument itself (for outputs overwritten with a new value), or null.
  EValue* GetRaw(size_t i);

  // Records "<op>: <message>" as the error detail and fails the call. Only
  // the first failure is kept.
  void Fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4)));

  // Resizes `out` to `sizes`, failing with the tensor's error (prefixed with
  // the op name) if it cannot; also fails if the resized tensor has elements
  // but no data. A shape change is refused when `out` is also another
  // argument of the call (an input or another output): kernels read input
  // shapes after resizing outputs. Returns ok().
  bool ResizeOut(Tensor& out, Span<const int32_t> sizes, const char* name);

 private:
  // The argument if it exists and has tag `tag` (or None when
  // `none_ok`); otherwise fails and returns nullptr.
  EValue* Arg(size_t i, Tag tag, bool none_ok);
  bool CheckData(const Tensor& t, size_t i);

  // The first tensors handed out, to detect an output that is also an input
  // (kernels with longer tensor lists check those themselves).
  static constexpr int kMaxSeen = 16;
  void Remember(const Tensor* t);

  KernelContext& ctx_;
  const char* op_;
  Span<EValue*> args_;
  bool failed_ = false;
  const Tensor* seen_[kMaxSeen] = {};
  int num_seen_ = 0;
};

// Wraps a possibly negative `dim` into [0, rank). For rank 0 PyTorch accepts
// dim in [-1, 0] and this returns 0. Returns false if out of range.
bool NormalizeDim(int64_t dim, int rank, int* out);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_KERNEL_ARGS_H_
