#include "runtime/core/scalar_type.h"

namespace edgefleet {

bool IsValidScalarType(int value) {
  return (value >= 0 && value <= 7) || (value >= 11 && value <= 17) || (value >= 22 && value <= 29);
}

size_t ElementSize(ScalarType type) {
  switch (type) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kBool:
    case ScalarType::kQInt8:
    case ScalarType::kQUInt8:
    case ScalarType::kQUInt4x2:
    case ScalarType::kQUInt2x4:
    case ScalarType::kFloat8e5m2:
    case ScalarType::kFloat8e4m3fn:
    case ScalarType::kFloat8e5m2fnuz:
    case ScalarType::kFloat8e4m3fnuz:
      return 1;
    case ScalarType::kShort:
    case ScalarType::kHalf:
    case ScalarType::kBFloat16:
    case ScalarType::kBits16:
    case ScalarType::kUInt16:
      return 2;
    case ScalarType::kInt:
    case ScalarType::kFloat:
    case ScalarType::kQInt32:
    case ScalarType::kUInt32:
      return 4;
    case ScalarType::kLong:
    case ScalarType::kDouble:
    case ScalarType::kUInt64:
      return 8;
  }
  return 0;
}

const char* ScalarTypeName(ScalarType type) {
  switch (type) {
    case ScalarType::kByte:
      return "uint8";
    case ScalarType::kChar:
      return "int8";
    case ScalarType::kShort:
      return "int16";
    case ScalarType::kInt:
      return "int32";
    case ScalarType::kLong:
      return "int64";
    case ScalarType::kHalf:
      return "float16";
    case ScalarType::kFloat:
      return "float32";
    case ScalarType::kDouble:
      return "float64";
    case ScalarType::kBool:
      return "bool";
    case ScalarType::kQInt8:
      return "qint8";
    case ScalarType::kQUInt8:
      return "quint8";
    case ScalarType::kQInt32:
      return "qint32";
    case ScalarType::kBFloat16:
      return "bfloat16";
    case ScalarType::kQUInt4x2:
      return "quint4x2";
    case ScalarType::kQUInt2x4:
      return "quint2x4";
    case ScalarType::kBits16:
      return "bits16";
    case ScalarType::kFloat8e5m2:
      return "float8_e5m2";
    case ScalarType::kFloat8e4m3fn:
      return "float8_e4m3fn";
    case ScalarType::kFloat8e5m2fnuz:
      return "float8_e5m2fnuz";
    case ScalarType::kFloat8e4m3fnuz:
      return "float8_e4m3fnuz";
    case ScalarType::kUInt16:
      return "uint16";
    case ScalarType::kUInt32:
      return "uint32";
    case ScalarType::kUInt64:
      return "uint64";
  }
  return "invalid";
}

}  // namespace edgefleet
