// Copying tensor data between layouts (dim orders).

#ifndef EDGEFLEET_RUNTIME_CORE_TENSOR_COPY_H_
#define EDGEFLEET_RUNTIME_CORE_TENSOR_COPY_H_

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace edgefleet {

// Copies the elements of `src` into `dst`, converting between their dim
// orders (e.g. NCHW caller data into a channels-last input). Both tensors
// keep their shapes. Errors: kInvalidArgument (with detail) if dtypes or
// sizes differ or data is missing.
Error CopyTensorData(const Tensor& src, Tensor& dst);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_TENSOR_COPY_H_
