// MethodInputs: the input values edgefleet-run feeds one method, either
// read from .npy files or generated from a seed to match MethodMeta.
//
// Tensors are logical C-order HostTensors with the default dim order;
// Method::SetInput converts them into a planned input's dim order. An
// unplanned input aliases caller memory and must already have the
// program's dim order, so for those a converted copy is kept instead.
// Non-tensor inputs (Int, Double, Bool) come from 0-d arrays, or are left at
// the value traced at export when no file is given for them.
//
// Owns all tensor storage; the Method aliases it (unplanned inputs), so a
// MethodInputs must outlive every Execute() that follows Apply(). Not
// thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_METHOD_INPUTS_H_
#define EDGEFLEET_RUNTIME_TOOLS_METHOD_INPUTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/tools/host_tensor.h"
#include "runtime/tools/npy.h"

namespace edgefleet {
namespace tools {

class MethodInputs {
 public:
  // One input as given to the method, for reports.
  struct Description {
    std::string source;  // a file path, "random", or "traced" (left as exported)
    std::string value;   // "float32[1,3,224,224]", or the tag of a traced value
  };

  // Input i from arrays[i] (sources[i] names it). Errors: kInvalidArgument
  // if there are more arrays than inputs, fewer arrays than tensor inputs,
  // or an array cannot stand for a non-tensor input; kNotSupported for
  // inputs of other kinds (lists, strings).
  static Result<MethodInputs> FromArrays(const MethodMeta& meta,
                                         const std::vector<NpyArray>& arrays,
                                         const std::vector<std::string>& sources);

  // Random contents (random_fill.h) for every tensor input, at its
  // export-time (upper-bound) shape. Errors: kNotSupported for dtypes
  // without a generator.
  static Result<MethodInputs> Random(const MethodMeta& meta, uint64_t seed);

  MethodInputs(MethodInputs&&) = default;
  MethodInputs(const MethodInputs&) = delete;
  MethodInputs& operator=(const MethodInputs&) = delete;

  // Sets every provided input on `method` (errors as Method::SetInput).
  Error Apply(Method& method);

  const std::vector<Description>& descriptions() const { return descriptions_; }

 private:
  struct Input {
    std::unique_ptr<HostTensor> tensor;  // null for scalar inputs
    EValue value;
    bool provided = false;  // false: leave the traced value
  };

  MethodInputs() = default;
  // Replaces a tensor destined for an unplanned input with a copy in that
  // input's dim order.
  static Error MatchUnplannedDimOrder(const MethodMeta& meta, size_t i, Input& input);

  std::vector<Input> inputs_;
  std::vector<Description> descriptions_;
};

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_METHOD_INPUTS_H_
