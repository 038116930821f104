#include "runtime/core/evalue.h"

namespace edgefleet {

Span<const int64_t> BoxedIntList::Get() const {
  for (size_t i = 0; i < size; ++i) unboxed[i] = items[i]->to_int();
  return {unboxed, size};
}

Span<Tensor* const> BoxedTensorList::Get() const {
  for (size_t i = 0; i < size; ++i) {
    unboxed[i] = items[i] != nullptr && items[i]->is_tensor() ? items[i]->tensor_ptr() : nullptr;
  }
  return {unboxed, size};
}

const char* TagName(Tag tag) {
  switch (tag) {
    case Tag::kNone:
      return "None";
    case Tag::kTensor:
      return "Tensor";
    case Tag::kString:
      return "String";
    case Tag::kDouble:
      return "Double";
    case Tag::kInt:
      return "Int";
    case Tag::kBool:
      return "Bool";
    case Tag::kListBool:
      return "BoolList";
    case Tag::kListDouble:
      return "DoubleList";
    case Tag::kListInt:
      return "IntList";
    case Tag::kListTensor:
      return "TensorList";
    case Tag::kListOptionalTensor:
      return "OptionalTensorList";
  }
  return "?";
}

EValue EValue::FromInt(int64_t v) {
  EValue e;
  e.tag_ = Tag::kInt;
  e.payload_.as_int = v;
  return e;
}

EValue EValue::FromDouble(double v) {
  EValue e;
  e.tag_ = Tag::kDouble;
  e.payload_.as_double = v;
  return e;
}

EValue EValue::FromBool(bool v) {
  EValue e;
  e.tag_ = Tag::kBool;
  e.payload_.as_bool = v;
  return e;
}

EValue EValue::FromTensor(Tensor* t) {
  EValue e;
  e.tag_ = Tag::kTensor;
  e.payload_.as_tensor = t;
  return e;
}

EValue EValue::FromString(const char* data, size_t size) {
  EValue e;
  e.tag_ = Tag::kString;
  e.payload_.as_span.chars = data;
  e.payload_.as_span.size = size;
  return e;
}

EValue EValue::FromDoubleList(const double* data, size_t size) {
  EValue e;
  e.tag_ = Tag::kListDouble;
  e.payload_.as_span.doubles = data;
  e.payload_.as_span.size = size;
  return e;
}

EValue EValue::FromBoolList(const uint8_t* data, size_t size) {
  EValue e;
  e.tag_ = Tag::kListBool;
  e.payload_.as_span.bools = data;
  e.payload_.as_span.size = size;
  return e;
}

EValue EValue::FromIntList(BoxedIntList* list) {
  EValue e;
  e.tag_ = Tag::kListInt;
  e.payload_.as_int_list = list;
  return e;
}

EValue EValue::FromTensorList(BoxedTensorList* list, bool optional_items) {
  EValue e;
  e.tag_ = optional_items ? Tag::kListOptionalTensor : Tag::kListTensor;
  e.payload_.as_tensor_list = list;
  return e;
}

Scalar EValue::to_scalar() const {
  Scalar s{Scalar::Kind::kInt, 0, 0.0};
  if (is_double()) {
    s.kind = Scalar::Kind::kDouble;
    s.d = payload_.as_double;
  } else if (is_bool()) {
    s.kind = Scalar::Kind::kBool;
    s.i = payload_.as_bool ? 1 : 0;
  } else {
    s.i = payload_.as_int;
  }
  s.d = s.kind == Scalar::Kind::kDouble ? s.d : static_cast<double>(s.i);
  return s;
}

}  // namespace edgefleet
