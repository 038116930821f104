#include "runtime/kernels/portable/elementwise.h"

namespace edgefleet {
namespace portable {

Operand::Operand(const Scalar& s) : is_scalar_(true) {
  view_.dim = 0;
  switch (s.kind) {
    case Scalar::Kind::kDouble:
      storage_.d = s.d;
      view_.dtype = ScalarType::kDouble;
      break;
    case Scalar::Kind::kBool:
      storage_.b = s.i != 0;
      view_.dtype = ScalarType::kBool;
      break;
    case Scalar::Kind::kInt:
      storage_.i = s.i;
      view_.dtype = ScalarType::kLong;
      break;
  }
  view_.data = reinterpret_cast<char*>(&storage_);
}

}  // namespace portable
}  // namespace edgefleet
