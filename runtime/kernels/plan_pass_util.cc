#include "runtime/kernels/plan_pass_util.h"

#include <cmath>
#include <cstring>

namespace edgefleet {

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

}  // namespace edgefleet
