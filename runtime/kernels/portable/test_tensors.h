// Test helpers for the portable kernels: tensors, lists and kernel calls
// that own their storage. Values are given and read back in logical
// (row-major) order whatever the dim order, so expected values read
// naturally. Test-only (uses the heap and std::vector).

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_TEST_TENSORS_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_TEST_TENSORS_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/dtype_util.h"

namespace edgefleet {
namespace portable {
namespace testing {

// A tensor of element type T (bool is stored as bytes) that owns its
// metadata and data. Not copyable or movable: EValues point into it.
template <typename T>
class TestTensor {
 public:
  // `values` in logical order (may be empty: zero-filled). `dim_order`
  // empty means the default. `capacity` (elements) defaults to numel.
  TestTensor(std::vector<int32_t> sizes, std::vector<T> values = {},
             std::vector<uint8_t> dim_order = {},
             ShapeDynamism dynamism = ShapeDynamism::kDynamicBound, int64_t capacity = -1)
      : sizes_(std::move(sizes)), dim_order_(std::move(dim_order)), strides_(sizes_.size() + 1) {
    if (dim_order_.empty()) {
      for (size_t i = 0; i < sizes_.size(); ++i) dim_order_.push_back(i);
    }
    int64_t numel = 1;
    for (int32_t s : sizes_) numel *= s;
    const int64_t cap = capacity < 0 ? numel : capacity;
    storage_.assign(static_cast<size_t>(cap > 0 ? cap : 1) * sizeof(T) / 8 + 1, 0);
    tensor_ =
        std::make_unique<Tensor>(ScalarTypeOf<T>(), static_cast<int>(sizes_.size()), sizes_.data(),
                                 dim_order_.data(), strides_.data(), storage_.data(), dynamism);
    tensor_->set_numel_bound(cap);
    evalue_ = EValue::FromTensor(tensor_.get());
    if (!values.empty()) Set(values);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor& tensor() { return *tensor_; }
  EValue* ev() { return &evalue_; }

  // Writes `values` (logical order) into memory according to the strides.
  void Set(const std::vector<T>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      const T v = values[i];  // vector<bool> has no element addresses
      std::memcpy(At(static_cast<int64_t>(i)), &v, sizeof(T));
    }
  }

  // The current elements in logical order.
  std::vector<T> Values() const {
    std::vector<T> out;
    for (int64_t i = 0; i < tensor_->numel(); ++i) {
      T v;
      std::memcpy(&v, At(i), sizeof(T));
      out.push_back(v);
    }
    return out;
  }

  std::vector<int32_t> Sizes() const { return {tensor_->sizes().begin(), tensor_->sizes().end()}; }

 private:
  // Address of the element at logical (row-major) index `flat`.
  char* At(int64_t flat) const {
    int64_t offset = 0;
    for (int d = tensor_->dim() - 1; d >= 0; --d) {
      const int64_t size = tensor_->size(d);
      offset += (flat % size) * tensor_->stride(d);
      flat /= size;
    }
    return reinterpret_cast<char*>(storage_.data()) + offset * sizeof(T);
  }

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  mutable std::vector<uint64_t> storage_;  // 8-byte aligned element bytes
  std::unique_ptr<Tensor> tensor_;
  EValue evalue_;
};

// A boxed IntList EValue owning its items.
class TestIntList {
 public:
  TestIntList(std::initializer_list<int64_t> values)
      : items_(values.size()), ptrs_(values.size()), unboxed_(values.size()) {
    size_t i = 0;
    for (int64_t v : values) {
      items_[i] = EValue::FromInt(v);
      ptrs_[i] = &items_[i];
      ++i;
    }
    list_ = {ptrs_.data(), unboxed_.data(), values.size()};
    evalue_ = EValue::FromIntList(&list_);
  }
  TestIntList(const TestIntList&) = delete;
  TestIntList& operator=(const TestIntList&) = delete;
  EValue* ev() { return &evalue_; }
  // The boxed item `i`, e.g. to change a symbolic size.
  EValue& item(size_t i) { return items_[i]; }

 private:
  std::vector<EValue> items_;
  std::vector<EValue*> ptrs_;
  std::vector<int64_t> unboxed_;
  BoxedIntList list_;
  EValue evalue_;
};

// A TensorList EValue over existing tensor EValues, or with `optional` an
// optional-tensor list (OptionalTensorList: nullptr items are None).
class TestTensorList {
 public:
  TestTensorList(std::vector<EValue*> items, bool optional = false)
      : items_(std::move(items)), unboxed_(items_.size()) {
    list_ = {items_.data(), unboxed_.data(), items_.size()};
    evalue_ = EValue::FromTensorList(&list_, optional);
  }
  TestTensorList(const TestTensorList&) = delete;
  TestTensorList& operator=(const TestTensorList&) = delete;
  EValue* ev() { return &evalue_; }

 private:
  std::vector<EValue*> items_;
  std::vector<Tensor*> unboxed_;
  BoxedTensorList list_;
  EValue evalue_;
};

// Runs `fn` on `args` with a 1 MiB temp allocator; returns the failure
// (kOk on success).
inline Error RunKernel(OpFunction fn, std::vector<EValue*> args, size_t temp_bytes = 1 << 20) {
  std::vector<uint64_t> temp_memory(temp_bytes / 8 + 1);
  MemoryAllocator temp(temp_memory.data(), temp_bytes);
  KernelContext ctx(&temp, 1);
  ClearErrorDetail();
  fn(ctx, Span<EValue*>(args.data(), args.size()));
  return ctx.failure();
}

// Expects equal lengths and |actual[i] - expected[i]| <= tolerance.
template <typename T>
void ExpectNear(const std::vector<T>& actual, const std::vector<T>& expected,
                double tolerance = 1e-5) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "at index " << i;
  }
}

}  // namespace testing
}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_TEST_TENSORS_H_
