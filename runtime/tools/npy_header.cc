#include "runtime/tools/npy_header.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {
namespace {

// Longest quoted string accepted (keys and descr values are all short).
constexpr size_t kMaxStringLength = 32;

struct DescrEntry {
  const char* descr;
  ScalarType type;
};

constexpr DescrEntry kDescrs[] = {
    {"<f4", ScalarType::kFloat}, {"<f8", ScalarType::kDouble}, {"<i8", ScalarType::kLong},
    {"<i4", ScalarType::kInt},   {"<i2", ScalarType::kShort},  {"|i1", ScalarType::kChar},
    {"|u1", ScalarType::kByte},  {"|b1", ScalarType::kBool},   {"<f2", ScalarType::kHalf},
};

// A cursor over the header text. Every method stops at the end of the text.
class HeaderParser {
 public:
  HeaderParser(const char* text, size_t size) : p_(text), end_(text + size) {}

  Result<NpyHeader> Parse() {
    NpyHeader header;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    SkipSpace();
    EF_CHECK_OR_RETURN(Consume('{'), Error::kInvalidArgument,
                       "npy header is not a dict (expected '{')");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      EF_RETURN_IF_ERROR(ParseString("key", &key));
      SkipSpace();
      EF_CHECK_OR_RETURN(Consume(':'), Error::kInvalidArgument,
                         "npy header: expected ':' after '%s'", key.c_str());
      SkipSpace();
      if (key == "descr") {
        EF_CHECK_OR_RETURN(!seen_descr, Error::kInvalidArgument,
                           "npy header: duplicate key 'descr'");
        seen_descr = true;
        EF_RETURN_IF_ERROR(ParseString("descr", &header.descr));
      } else if (key == "fortran_order") {
        EF_CHECK_OR_RETURN(!seen_fortran, Error::kInvalidArgument,
                           "npy header: duplicate key 'fortran_order'");
        seen_fortran = true;
        EF_RETURN_IF_ERROR(ParseBool(&header.fortran_order));
      } else if (key == "shape") {
        EF_CHECK_OR_RETURN(!seen_shape, Error::kInvalidArgument,
                           "npy header: duplicate key 'shape'");
        seen_shape = true;
        EF_RETURN_IF_ERROR(ParseShape(&header.shape));
      } else {
        EF_FAIL(Error::kInvalidArgument, "npy header: unknown key '%s'", key.c_str());
      }
      SkipSpace();
      if (Consume(',')) continue;
      EF_CHECK_OR_RETURN(Consume('}'), Error::kInvalidArgument,
                         "npy header: expected ',' or '}' after '%s'", key.c_str());
      break;
    }
    SkipSpace();
    EF_CHECK_OR_RETURN(p_ == end_, Error::kInvalidArgument,
                       "npy header: unexpected text after the dict");
    EF_CHECK_OR_RETURN(seen_descr, Error::kInvalidArgument, "npy header: missing 'descr'");
    EF_CHECK_OR_RETURN(seen_fortran, Error::kInvalidArgument,
                       "npy header: missing 'fortran_order'");
    EF_CHECK_OR_RETURN(seen_shape, Error::kInvalidArgument, "npy header: missing 'shape'");
    return header;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool Consume(char c) {
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  bool ConsumeWord(const char* word) {
    const size_t n = strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  // A quoted string of printable ASCII without backslashes.
  Error ParseString(const char* what, std::string* out) {
    EF_CHECK_OR_RETURN(p_ < end_ && (*p_ == '\'' || *p_ == '"'), Error::kInvalidArgument,
                       "npy header: expected a quoted string for %s", what);
    const char quote = *p_++;
    out->clear();
    while (p_ < end_ && *p_ != quote) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      EF_CHECK_OR_RETURN(c >= 0x20 && c < 0x7f && c != '\\', Error::kInvalidArgument,
                         "npy header: unsupported character in %s", what);
      EF_CHECK_OR_RETURN(out->size() < kMaxStringLength, Error::kInvalidArgument,
                         "npy header: %s longer than %zu characters", what, kMaxStringLength);
      out->push_back(*p_++);
    }
    EF_CHECK_OR_RETURN(Consume(quote), Error::kInvalidArgument,
                       "npy header: unterminated string in %s", what);
    return Error::kOk;
  }

  Error ParseBool(bool* out) {
    if (ConsumeWord("True")) {
      *out = true;
    } else if (ConsumeWord("False")) {
      *out = false;
    } else {
      EF_FAIL(Error::kInvalidArgument, "npy header: fortran_order must be True or False");
    }
    return Error::kOk;
  }

  // A tuple of non-negative decimal ints: "()", "(n,)", "(a, b)", "(a, b,)".
  Error ParseShape(std::vector<int32_t>* shape) {
    EF_CHECK_OR_RETURN(Consume('('), Error::kInvalidArgument, "npy header: shape must be a tuple");
    shape->clear();
    bool trailing_comma = false;
    while (true) {
      SkipSpace();
      if (Consume(')')) break;
      EF_CHECK_OR_RETURN(shape->size() < static_cast<size_t>(kMaxNpyRank), Error::kInvalidArgument,
                         "npy header: rank exceeds %d", kMaxNpyRank);
      int32_t dim = 0;
      EF_RETURN_IF_ERROR(ParseDim(&dim));
      shape->push_back(dim);
      SkipSpace();
      trailing_comma = Consume(',');
      if (trailing_comma) continue;
      EF_CHECK_OR_RETURN(Consume(')'), Error::kInvalidArgument,
                         "npy header: expected ',' or ')' in shape");
      break;
    }
    EF_CHECK_OR_RETURN(shape->size() != 1 || trailing_comma, Error::kInvalidArgument,
                       "npy header: shape '(n)' is not a tuple (expected '(n,)')");
    return Error::kOk;
  }

  Error ParseDim(int32_t* dim) {
    EF_CHECK_OR_RETURN(p_ < end_ && *p_ != '-', Error::kInvalidArgument,
                       "npy header: negative dimension in shape");
    EF_CHECK_OR_RETURN(p_ < end_ && *p_ >= '0' && *p_ <= '9', Error::kInvalidArgument,
                       "npy header: shape entries must be integers");
    int64_t value = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      value = value * 10 + (*p_++ - '0');
      EF_CHECK_OR_RETURN(value <= INT32_MAX, Error::kInvalidArgument,
                         "npy header: dimension exceeds %d", INT32_MAX);
    }
    *dim = static_cast<int32_t>(value);
    return Error::kOk;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

Result<NpyHeader> ParseNpyHeader(const char* text, size_t size) {
  return HeaderParser(text, size).Parse();
}

std::string FormatShapeTuple(Span<const int32_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  out += ")";
  return out;
}

std::string FormatNpyHeader(const char* descr, Span<const int32_t> shape) {
  return std::string("{'descr': '") + descr +
         "', 'fortran_order': False, 'shape': " + FormatShapeTuple(shape) + ", }";
}

Result<ScalarType> ScalarTypeFromNpyDescr(const std::string& descr) {
  for (const DescrEntry& entry : kDescrs) {
    if (descr == entry.descr) return entry.type;
  }
  EF_CHECK_OR_RETURN(descr.empty() || descr[0] != '>', Error::kNotSupported,
                     "big-endian dtype '%s' is not supported", descr.c_str());
  EF_FAIL(Error::kNotSupported,
          "unsupported dtype '%s' (supported: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1)", descr.c_str());
}

const char* NpyDescrFromScalarType(ScalarType type) {
  for (const DescrEntry& entry : kDescrs) {
    if (type == entry.type) return entry.descr;
  }
  return nullptr;
}

}  // namespace tools
}  // namespace edgefleet
