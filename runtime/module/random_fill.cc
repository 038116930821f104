#include "runtime/module/random_fill.h"

#include "runtime/core/error_detail.h"
#include "runtime/core/half.h"

namespace edgefleet {
namespace {

// Upper bound (exclusive) of generated integers.
constexpr uint64_t kIntRange = 10;

float UniformFloat(std::mt19937_64& rng) {
  // 24 random bits: exactly representable, in [0, 1).
  return static_cast<float>(rng() >> 40) * 0x1p-24f * 2.0f - 1.0f;
}

double UniformDouble(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53 * 2.0 - 1.0;
}

template <typename T, typename Generate>
void Fill(Tensor& tensor, Generate generate) {
  T* data = tensor.data_as<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = static_cast<T>(generate());
}

}  // namespace

Error FillRandom(std::mt19937_64& rng, Tensor& tensor) {
  const auto small_int = [&rng] { return rng() % kIntRange; };
  switch (tensor.dtype()) {
    case ScalarType::kFloat:
      Fill<float>(tensor, [&rng] { return UniformFloat(rng); });
      break;
    case ScalarType::kDouble:
      Fill<double>(tensor, [&rng] { return UniformDouble(rng); });
      break;
    case ScalarType::kHalf:
      Fill<uint16_t>(tensor, [&rng] { return FloatToHalfBits(UniformFloat(rng)); });
      break;
    case ScalarType::kBFloat16:
      Fill<uint16_t>(tensor, [&rng] { return FloatToBFloat16Bits(UniformFloat(rng)); });
      break;
    case ScalarType::kByte:
      Fill<uint8_t>(tensor, small_int);
      break;
    case ScalarType::kChar:
      Fill<int8_t>(tensor, small_int);
      break;
    case ScalarType::kShort:
      Fill<int16_t>(tensor, small_int);
      break;
    case ScalarType::kInt:
      Fill<int32_t>(tensor, small_int);
      break;
    case ScalarType::kLong:
      Fill<int64_t>(tensor, small_int);
      break;
    case ScalarType::kUInt16:
      Fill<uint16_t>(tensor, small_int);
      break;
    case ScalarType::kUInt32:
      Fill<uint32_t>(tensor, small_int);
      break;
    case ScalarType::kUInt64:
      Fill<uint64_t>(tensor, small_int);
      break;
    case ScalarType::kBool:
      Fill<uint8_t>(tensor, [&rng] { return rng() & 1; });
      break;
    default:
      EF_FAIL(Error::kNotSupported, "cannot generate random %s data",
              ScalarTypeName(tensor.dtype()));
  }
  return Error::kOk;
}

}  // namespace edgefleet
