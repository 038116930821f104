// HostTensor: a Tensor together with heap storage for its shape, dim order,
// strides and data: inputs the host hands a Method (edgefleet-run's files and
// random inputs, the server's requests, tests).
//
// The data buffer is 64-byte aligned and has 64 bytes of zeroed slack past
// the end (vectorized kernels and delegates may read a little beyond the
// last element). A HostTensor owns everything its tensor() points at, so it
// is neither copyable nor movable; hold it by unique_ptr. Not thread-safe.

#ifndef EDGEFLEET_RUNTIME_MODULE_HOST_TENSOR_H_
#define EDGEFLEET_RUNTIME_MODULE_HOST_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace edgefleet {

class HostTensor {
 public:
  // A zero-filled tensor. An empty `dim_order` means the default (identity)
  // order. Errors: kInvalidArgument if the rank exceeds kMaxTensorRank, the
  // dim order is not a permutation of the right length, or a size is
  // negative or the element count overflows.
  static Result<std::unique_ptr<HostTensor>> Create(ScalarType dtype, Span<const int32_t> sizes,
                                                    Span<const uint8_t> dim_order = {});

  // A default-dim-order tensor holding a copy of `bytes`: the elements in
  // logical C order. Errors: as Create, and kInvalidArgument if the byte
  // count does not match the shape.
  static Result<std::unique_ptr<HostTensor>> FromBytes(ScalarType dtype, Span<const int32_t> sizes,
                                                       Span<const uint8_t> bytes);

  // A default-dim-order copy of `tensor` (any dim order), e.g. an output.
  static Result<std::unique_ptr<HostTensor>> CopyOf(const Tensor& tensor);

  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  // An EValue referring to tensor(); valid while this object lives.
  EValue value() { return EValue::FromTensor(&tensor_); }

 private:
  struct AlignedFree {
    void operator()(uint8_t* p) const;
  };

  HostTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order,
             std::unique_ptr<uint8_t[], AlignedFree> data);

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::unique_ptr<uint8_t[], AlignedFree> data_;
  Tensor tensor_;
};

// "float32[1,3,224,224]" (the runtime's notation in error details).
std::string DescribeTensor(ScalarType dtype, Span<const int32_t> sizes);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_MODULE_HOST_TENSOR_H_
