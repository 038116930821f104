#include "runtime/kernels/portable/dtype_util.h"

namespace edgefleet {
namespace portable {
namespace {

enum class Category { kBool = 0, kIntegral = 1, kFloating = 2 };

Category CategoryOf(ScalarType t) {
  if (t == ScalarType::kBool) return Category::kBool;
  return IsFloatingType(t) ? Category::kFloating : Category::kIntegral;
}

// Width rank of a signed integer type (uint8 ranks as int8 here).
int IntRank(ScalarType t) {
  switch (t) {
    case ScalarType::kShort:
      return 2;
    case ScalarType::kInt:
      return 3;
    case ScalarType::kLong:
      return 4;
    default:
      return 1;
  }
}

ScalarType SignedOfRank(int rank) {
  switch (rank) {
    case 1:
      return ScalarType::kChar;
    case 2:
      return ScalarType::kShort;
    case 3:
      return ScalarType::kInt;
    default:
      return ScalarType::kLong;
  }
}

// c10's combine_categories: `higher` comes from a higher-priority class of
// operands (dimensioned tensors over 0-dim tensors over scalars).
// kUndefined is represented by `has_higher` = false.
ScalarType CombineCategories(bool has_higher, ScalarType higher, bool has_lower, ScalarType lower) {
  if (!has_higher) return lower;
  if (!has_lower) return higher;
  if (IsFloatingType(higher)) return higher;
  if (higher == ScalarType::kBool || IsFloatingType(lower)) {
    return PromoteTypes(higher, lower);
  }
  return higher;
}

}  // namespace

ScalarType PromoteTypes(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::kBool) return b;
  if (b == ScalarType::kBool) return a;
  const bool fa = IsFloatingType(a);
  const bool fb = IsFloatingType(b);
  if (fa && fb) {  // different floating types: float64 wins, else float32
    const bool double_a = a == ScalarType::kDouble;
    return double_a || b == ScalarType::kDouble ? ScalarType::kDouble : ScalarType::kFloat;
  }
  if (fa) return a;
  if (fb) return b;
  if (a == ScalarType::kByte || b == ScalarType::kByte) {
    const ScalarType other = a == ScalarType::kByte ? b : a;
    return SignedOfRank(IntRank(other) < 2 ? 2 : IntRank(other));
  }
  return SignedOfRank(IntRank(a) > IntRank(b) ? IntRank(a) : IntRank(b));
}

bool CanCast(ScalarType from, ScalarType to) {
  if (CategoryOf(from) == Category::kFloating && CategoryOf(to) != Category::kFloating) {
    return false;
  }
  return !(from != ScalarType::kBool && to == ScalarType::kBool);
}

ScalarType ResultType(const TypeOperand* operands, int count) {
  bool has[3] = {false, false, false};  // dimensioned, zero-dim, scalar
  ScalarType type[3] = {ScalarType::kBool, ScalarType::kBool, ScalarType::kBool};
  for (int i = 0; i < count; ++i) {
    const TypeOperand& op = operands[i];
    int cls = op.is_scalar ? 2 : (op.dim == 0 ? 1 : 0);
    ScalarType t = op.dtype;
    if (op.is_scalar && IsFloatingType(t)) t = ScalarType::kFloat;
    type[cls] = has[cls] ? PromoteTypes(type[cls], t) : t;
    has[cls] = true;
  }
  const ScalarType lower = CombineCategories(has[1], type[1], has[2], type[2]);
  return CombineCategories(has[0], type[0], has[1] || has[2], lower);
}

ScalarType ScalarDtype(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kDouble:
      return ScalarType::kDouble;
    case Scalar::Kind::kBool:
      return ScalarType::kBool;
    case Scalar::Kind::kInt:
      return ScalarType::kLong;
  }
  return ScalarType::kLong;
}

}  // namespace portable
}  // namespace edgefleet
