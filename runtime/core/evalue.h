// EValue: one value of a method (tensor, scalar, string, list or None).
//
// EValues live in the method's value table, allocated from the method
// allocator. Pointer payloads (Tensor, boxed lists) point at objects in the
// same allocator; string, bool-list and double-list payloads point into the
// program's flatbuffer. An EValue owns nothing. Not thread-safe.
//
// Int lists are boxed, as in the .pte format: each element is the index of
// an Int value, so sizes computed at run time (sym_size) flow into later
// lists. IntList::Get() re-reads the elements on every call.

#ifndef EDGEFLEET_RUNTIME_CORE_EVALUE_H_
#define EDGEFLEET_RUNTIME_CORE_EVALUE_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace edgefleet {

class EValue;

// A list of Int values, boxed. `items` and `unboxed` have `size` elements.
struct BoxedIntList {
  EValue* const* items;
  int64_t* unboxed;
  size_t size;
  // Current element values. Valid until the next Get() on this list.
  Span<const int64_t> Get() const;
};

// A list of tensors (or of optional tensors: a null entry means None).
struct BoxedTensorList {
  EValue* const* items;  // nullptr entries are None (optional lists only)
  Tensor** unboxed;
  size_t size;
  Span<Tensor* const> Get() const;
};

enum class Tag : uint8_t {
  kNone,
  kTensor,
  kString,
  kDouble,
  kInt,
  kBool,
  kListBool,
  kListDouble,
  kListInt,
  kListTensor,
  kListOptionalTensor,
};

const char* TagName(Tag tag);

// A Scalar argument: an Int, Double or Bool value.
struct Scalar {
  enum class Kind : uint8_t { kInt, kDouble, kBool } kind;
  int64_t i;
  double d;
  double AsDouble() const { return kind == Kind::kDouble ? d : static_cast<double>(i); }
};

class EValue {
 public:
  EValue() : tag_(Tag::kNone) { payload_.as_int = 0; }
  static EValue FromInt(int64_t v);
  static EValue FromDouble(double v);
  static EValue FromBool(bool v);
  static EValue FromTensor(Tensor* t);
  static EValue FromString(const char* data, size_t size);
  static EValue FromDoubleList(const double* data, size_t size);
  static EValue FromBoolList(const uint8_t* data, size_t size);
  static EValue FromIntList(BoxedIntList* list);
  static EValue FromTensorList(BoxedTensorList* list, bool optional_items);

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::kNone; }
  bool is_tensor() const { return tag_ == Tag::kTensor; }
  bool is_int() const { return tag_ == Tag::kInt; }
  bool is_double() const { return tag_ == Tag::kDouble; }
  bool is_bool() const { return tag_ == Tag::kBool; }
  bool is_scalar() const { return is_int() || is_double() || is_bool(); }

  // Accessors. REQUIRES: the tag matches (callers check first).
  int64_t to_int() const { return payload_.as_int; }
  double to_double() const { return payload_.as_double; }
  bool to_bool() const { return payload_.as_bool; }
  Tensor& to_tensor() const { return *payload_.as_tensor; }
  Tensor* tensor_ptr() const { return payload_.as_tensor; }
  Span<const char> to_string() const { return {payload_.as_span.chars, payload_.as_span.size}; }
  Span<const double> to_double_list() const {
    return {payload_.as_span.doubles, payload_.as_span.size};
  }
  Span<const uint8_t> to_bool_list() const {
    return {payload_.as_span.bools, payload_.as_span.size};
  }
  const BoxedIntList& to_int_list() const { return *payload_.as_int_list; }
  const BoxedTensorList& to_tensor_list() const { return *payload_.as_tensor_list; }
  // REQUIRES: is_scalar().
  Scalar to_scalar() const;

 private:
  union Payload {
    int64_t as_int;
    double as_double;
    bool as_bool;
    Tensor* as_tensor;
    BoxedIntList* as_int_list;
    BoxedTensorList* as_tensor_list;
    struct {
      union {
        const char* chars;
        const double* doubles;
        const uint8_t* bools;
      };
      size_t size;
    } as_span;
  } payload_;
  Tag tag_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_EVALUE_H_
