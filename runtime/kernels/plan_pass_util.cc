#include "runtime/kernels/plan_pass_util.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>

namespace edgefleet {

bool Names(const PlanEditor& plan, size_t pc, const EValue* v) {
  if (plan.op(pc) == nullptr) return false;
  bool names = false;
  ForEachArgValue(plan.args(pc), [&](const EValue* a) { names = names || a == v; });
  return names;
}

size_t NumNamingReaders(const PlanEditor& plan, const EValue* v) {
  const int64_t w = plan.writer(v);
  size_t n = 0;
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    n += static_cast<int64_t>(pc) != w && Names(plan, pc, v);
  }
  return n;
}

size_t ReadersAfter(const PlanEditor& plan, size_t pc, const EValue* v, int64_t* pcs, size_t max) {
  size_t n = 0;
  for (size_t r = pc + 1; r < plan.num_instructions(); ++r) {
    if (!Names(plan, r, v)) continue;
    if (n == max) return max + 1;
    pcs[n++] = static_cast<int64_t>(r);
  }
  return n;
}

int64_t FirstReaderAfter(const PlanEditor& plan, size_t pc, const EValue* v) {
  int64_t first = -1;
  return ReadersAfter(plan, pc, v, &first, 1) >= 1 ? first : -1;
}

bool NamedElsewhere(const PlanEditor& plan, const EValue* v, size_t pc) {
  for (size_t r = 0; r < plan.num_instructions(); ++r) {
    if (r != pc && Names(plan, r, v)) return true;
  }
  return false;
}

int64_t SoleReader(const PlanEditor& plan, size_t pc, const EValue* v) {
  if (plan.writer(v) != static_cast<int64_t>(pc) || plan.num_readers(v) != 1 ||
      plan.is_method_io(v)) {
    return -1;
  }
  return FirstReaderAfter(plan, pc, v);
}

bool IsOp(const PlanEditor& plan, int64_t pc, const char* name) {
  if (pc < 0) return false;
  const char* op = plan.op(static_cast<size_t>(pc));
  return op != nullptr && std::strcmp(op, name) == 0;
}

bool ConstNumber(const PlanEditor& plan, const EValue* value, double* out) {
  if (value == nullptr || plan.writer(value) != -1) return false;
  if (value->is_double()) {
    *out = value->to_double();
  } else if (value->is_int()) {
    *out = static_cast<double>(value->to_int());
  } else {
    return false;
  }
  return std::isfinite(*out);
}

namespace {

// A float32 [rows, cols] tensor value in dim order `order` over `data`,
// its metadata in method memory; null when that ran out or rows do not fit
// int32.
EValue* NewFloatMatrixOver(PlanEditor& plan, int64_t rows, int32_t cols, const uint8_t* order,
                           void* data) {
  struct OwnedMatrix {
    int32_t sizes[2];
    uint8_t dim_order[2];
    int32_t strides[2];
    alignas(Tensor) unsigned char storage[sizeof(Tensor)];
  };
  if (rows > INT32_MAX || data == nullptr) return nullptr;
  void* meta = plan.Allocate(sizeof(OwnedMatrix), alignof(OwnedMatrix));
  if (meta == nullptr) return nullptr;
  auto* o =
      new (meta) OwnedMatrix{{static_cast<int32_t>(rows), cols}, {order[0], order[1]}, {}, {}};
  Tensor* t = new (o->storage) Tensor(ScalarType::kFloat, 2, o->sizes, o->dim_order, o->strides,
                                      data, ShapeDynamism::kStatic);
  return plan.NewValue(EValue::FromTensor(t));
}

}  // namespace

EValue* NewFloatMatrix(PlanEditor& plan, int64_t rows, int32_t cols, float** data) {
  if (rows > INT32_MAX) return nullptr;
  const uint8_t order[2] = {0, 1};
  *data = static_cast<float*>(plan.Allocate(sizeof(float) * rows * cols, 64));
  return NewFloatMatrixOver(plan, rows, cols, order, *data);
}

EValue* NewFloatMatrixView(PlanEditor& plan, int32_t rows, int32_t cols, const uint8_t* order,
                           const float* data) {
  return NewFloatMatrixOver(plan, rows, cols, order, const_cast<float*>(data));
}

}  // namespace edgefleet
