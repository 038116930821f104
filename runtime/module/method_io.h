// Feeding a method caller-owned bytes and reading its outputs back, each
// with one copy: the server's ModelInfer path (service/edgefleet_stack.cc)
// and edgefleet-run's output files.
//
// InputBinder holds what unplanned inputs alias; it must outlive every
// Execute() that follows Bind(). Not thread-safe; CopyToContiguous is
// stateless.

#ifndef EDGEFLEET_RUNTIME_MODULE_METHOD_IO_H_
#define EDGEFLEET_RUNTIME_MODULE_METHOD_IO_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/method.h"
#include "runtime/module/host_tensor.h"

namespace edgefleet {

// Copies the elements of `tensor` (any dim order) into `dst` in logical C
// order. Errors: kInvalidArgument (with detail) if dst.size() differs from
// tensor.nbytes() or the tensor has no data.
Error CopyToContiguous(const Tensor& tensor, Span<uint8_t> dst);

class InputBinder {
 public:
  // Sets tensor input i of `method` to `bytes`: elements of the given dtype
  // and sizes in logical C order. A planned input receives the one copy in
  // the method's arena; `bytes` need not outlive the call. An unplanned
  // input is copied once into a tensor in the program's dim order that this
  // binder keeps (the method aliases it) until i is bound again. Errors: as
  // Method::SetInput, kInvalidArgument if the byte count does not match.
  Error Bind(Method& method, size_t i, ScalarType dtype, Span<const int32_t> sizes,
             Span<const uint8_t> bytes);

 private:
  std::vector<std::unique_ptr<HostTensor>> held_;  // by input index
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_MODULE_METHOD_IO_H_
