#include "runtime/tools/npy.h"

#include <cstring>
#include <string>

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              ".npy data is read and written as little-endian host memory");

namespace edgefleet {
namespace tools {
namespace {

constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMagicSize = sizeof(kMagic);
// Header (preamble + dict + padding) length multiple NumPy writes.
constexpr size_t kHeaderAlignment = 64;

uint32_t ReadLittleEndian(const uint8_t* p, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint32_t>(p[i]) << (8 * i);
  return value;
}

Span<const int32_t> ShapeSpan(const std::vector<int32_t>& shape) {
  return {shape.data(), shape.size()};
}

// numel * ElementSize(dtype) in bytes, or false if it overflows.
bool ByteSize(ScalarType dtype, const std::vector<int32_t>& shape, uint64_t* bytes) {
  const int64_t numel = CheckedNumel(ShapeSpan(shape));
  if (numel < 0) return false;
  return !__builtin_mul_overflow(static_cast<uint64_t>(numel),
                                 static_cast<uint64_t>(ElementSize(dtype)), bytes);
}

}  // namespace

int64_t NpyArray::numel() const { return CheckedNumel(ShapeSpan(shape)); }

Result<NpyArray> ParseNpy(const uint8_t* data, size_t size) {
  EF_CHECK_OR_RETURN(size >= kMagicSize && memcmp(data, kMagic, kMagicSize) == 0,
                     Error::kInvalidArgument, "not a .npy file (bad magic)");
  EF_CHECK_OR_RETURN(size >= kMagicSize + 2, Error::kInvalidArgument,
                     "truncated .npy header (no version)");
  const uint8_t major = data[kMagicSize], minor = data[kMagicSize + 1];
  EF_CHECK_OR_RETURN(major >= 1 && major <= 3 && minor == 0, Error::kNotSupported,
                     "unsupported .npy version %u.%u", major, minor);
  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 a 4-byte one.
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + length_bytes;
  EF_CHECK_OR_RETURN(size >= preamble, Error::kInvalidArgument,
                     "truncated .npy header (no header length)");
  const uint32_t header_length = ReadLittleEndian(data + kMagicSize + 2, length_bytes);
  EF_CHECK_OR_RETURN(header_length <= kMaxNpyHeaderBytes, Error::kInvalidArgument,
                     ".npy header length %u exceeds the limit of %zu bytes", header_length,
                     kMaxNpyHeaderBytes);
  EF_CHECK_OR_RETURN(size - preamble >= header_length, Error::kInvalidArgument,
                     "truncated .npy header (%u bytes declared, %zu present)", header_length,
                     size - preamble);

  EF_ASSIGN_OR_RETURN(
      NpyHeader header,
      ParseNpyHeader(reinterpret_cast<const char*>(data + preamble), header_length));
  EF_CHECK_OR_RETURN(!header.fortran_order, Error::kNotSupported,
                     "fortran_order arrays are not supported (save a C-contiguous array)");
  EF_ASSIGN_OR_RETURN(const ScalarType dtype, ScalarTypeFromNpyDescr(header.descr));

  uint64_t nbytes = 0;
  EF_CHECK_OR_RETURN(ByteSize(dtype, header.shape, &nbytes), Error::kInvalidArgument,
                     ".npy shape %s is too large (byte size overflows)",
                     FormatShapeTuple(ShapeSpan(header.shape)).c_str());
  const size_t data_offset = preamble + header_length;
  const size_t available = size - data_offset;
  EF_CHECK_OR_RETURN(nbytes == available, Error::kInvalidArgument,
                     ".npy data is %zu bytes but shape %s of %s needs %llu", available,
                     FormatShapeTuple(ShapeSpan(header.shape)).c_str(), ScalarTypeName(dtype),
                     static_cast<unsigned long long>(nbytes));

  NpyArray array;
  array.dtype = dtype;
  array.shape = std::move(header.shape);
  array.data.assign(data + data_offset, data + size);
  if (dtype == ScalarType::kBool) {
    for (uint8_t b : array.data) {
      EF_CHECK_OR_RETURN(b <= 1, Error::kInvalidArgument,
                         ".npy bool data contains a byte other than 0 or 1");
    }
  }
  return array;
}

Result<std::vector<uint8_t>> SerializeNpy(const NpyArray& array) {
  const char* descr = NpyDescrFromScalarType(array.dtype);
  EF_CHECK_OR_RETURN(descr != nullptr, Error::kNotSupported, "%s arrays cannot be written as .npy",
                     ScalarTypeName(array.dtype));
  uint64_t nbytes = 0;
  EF_CHECK_OR_RETURN(ByteSize(array.dtype, array.shape, &nbytes) && nbytes == array.data.size(),
                     Error::kInvalidArgument, "npy: data size does not match shape %s",
                     FormatShapeTuple(ShapeSpan(array.shape)).c_str());

  std::string dict = FormatNpyHeader(descr, ShapeSpan(array.shape));
  // Pad with spaces and a final newline so that the data starts aligned.
  size_t preamble = kMagicSize + 2 + 2;
  size_t total = preamble + dict.size() + 1;
  if (total - preamble > UINT16_MAX) preamble = kMagicSize + 2 + 4;
  total = preamble + dict.size() + 1;
  total = (total + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  const size_t length_bytes = preamble - kMagicSize - 2;
  out.push_back(length_bytes == 2 ? 1 : 2);
  out.push_back(0);
  const uint32_t header_length = static_cast<uint32_t>(dict.size());
  for (size_t i = 0; i < length_bytes; ++i) out.push_back((header_length >> (8 * i)) & 0xff);
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

}  // namespace tools
}  // namespace edgefleet
