// MethodInputs: the input values a host feeds one method (edgefleet-run's
// files or generated inputs, the server's host profiler), held so that they
// can be applied before every Execute().
//
// Tensors are given as logical C-order HostTensors with the default dim
// order; Method::SetInput converts them into a planned input's dim order. An
// unplanned input aliases caller memory and must already have the
// program's dim order, so for those a converted copy is kept instead.
// Inputs never set are left at the value traced at export.
//
// Owns all tensor storage; the Method aliases it (unplanned inputs), so a
// MethodInputs must outlive every Execute() that follows Apply(). Not
// thread-safe.

#ifndef EDGEFLEET_RUNTIME_MODULE_METHOD_INPUTS_H_
#define EDGEFLEET_RUNTIME_MODULE_METHOD_INPUTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/module/host_tensor.h"

namespace edgefleet {

class MethodInputs {
 public:
  // One input as given to the method, for reports.
  struct Description {
    std::string source;  // a file path, "random", or "traced" (left as exported)
    std::string value;   // "float32[1,3,224,224]", or the tag of a traced value
  };

  // Every input of `meta` left at its traced value.
  explicit MethodInputs(const MethodMeta& meta);

  // Random contents (random_fill.h) for every tensor input, at its
  // export-time (upper-bound) shape. Errors: kNotSupported for dtypes
  // without a generator.
  static Result<MethodInputs> Random(const MethodMeta& meta, uint64_t seed);

  MethodInputs(MethodInputs&&) = default;
  MethodInputs(const MethodInputs&) = delete;
  MethodInputs& operator=(const MethodInputs&) = delete;

  // Input i is `tensor` (C order, default dim order). Errors:
  // kInvalidArgument if i is out of range; allocation errors of the copy
  // made for an unplanned input.
  Error SetTensor(size_t i, std::unique_ptr<HostTensor> tensor, Description description);
  // Input i is the non-tensor `value` (Int, Double, Bool). Errors:
  // kInvalidArgument if i is out of range.
  Error SetValue(size_t i, EValue value, Description description);
  // Describes input i, left at its traced value. Errors: kInvalidArgument if
  // i is out of range.
  Error SetTraced(size_t i, Description description);

  // Sets every provided input on `method` (errors as Method::SetInput).
  Error Apply(Method& method);

  const std::vector<Description>& descriptions() const { return descriptions_; }

 private:
  struct Input {
    std::unique_ptr<HostTensor> tensor;  // null for scalar inputs
    EValue value;
    bool provided = false;  // false: leave the traced value
  };

  // Replaces a tensor destined for an unplanned input with a copy in that
  // input's dim order.
  Error MatchUnplannedDimOrder(size_t i, Input& input);

  MethodMeta meta_;  // refers into the Program, which must outlive this
  std::vector<Input> inputs_;
  std::vector<Description> descriptions_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_MODULE_METHOD_INPUTS_H_
