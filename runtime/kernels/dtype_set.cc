#include "runtime/kernels/dtype_set.h"

namespace edgefleet {

bool FirstTensorDtype(Span<EValue* const> args, ScalarType* dtype) {
  for (const EValue* a : args) {
    if (a == nullptr) continue;
    if (a->is_tensor()) {
      *dtype = a->to_tensor().dtype();
      return true;
    }
    if (a->tag() == Tag::kListTensor || a->tag() == Tag::kListOptionalTensor) {
      const BoxedTensorList& list = a->to_tensor_list();
      for (size_t i = 0; i < list.size; ++i) {
        const EValue* item = list.items[i];
        if (item == nullptr || !item->is_tensor()) continue;
        *dtype = item->to_tensor().dtype();
        return true;
      }
    }
  }
  return false;
}

}  // namespace edgefleet
