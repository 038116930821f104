// Conversions between .npy arrays (npy.h) and the runtime's tensors and
// method inputs (runtime/module/): edgefleet-run's --input files and its
// output files. Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_NPY_TENSORS_H_
#define EDGEFLEET_RUNTIME_TOOLS_NPY_TENSORS_H_

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/method_meta.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/method_inputs.h"
#include "runtime/tools/npy.h"

namespace edgefleet {
namespace tools {

// A default-dim-order tensor holding a copy of `array`. Errors: as
// HostTensor::FromBytes.
Result<std::unique_ptr<HostTensor>> HostTensorFromNpy(const NpyArray& array);

// The elements of `tensor` (any dim order) in logical C order: one copy.
// Errors: as CopyToContiguous (runtime/module/method_io.h).
Result<NpyArray> NpyFromTensor(const Tensor& tensor);

// Input i from arrays[i] (sources[i] names it); inputs past the arrays are
// left at their traced values. Errors: kInvalidArgument if there are more
// arrays than inputs, fewer arrays than tensor inputs, or an array cannot
// stand for a non-tensor input; kNotSupported for inputs of other kinds
// (lists, strings).
Result<MethodInputs> MethodInputsFromArrays(const MethodMeta& meta,
                                            const std::vector<NpyArray>& arrays,
                                            const std::vector<std::string>& sources);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_NPY_TENSORS_H_
