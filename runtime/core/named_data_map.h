// NamedDataMap: blobs looked up by string key (e.g. delegate weights keyed by
// their sha256). Implemented by Program for data embedded in the .pte.
// Implementations must be safe for concurrent const use.

#ifndef EDGEFLEET_RUNTIME_CORE_NAMED_DATA_MAP_H_
#define EDGEFLEET_RUNTIME_CORE_NAMED_DATA_MAP_H_

#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"

namespace edgefleet {

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  // The bytes stored under `key`. Errors: kNotFound for an unknown key.
  virtual Result<FreeableBuffer> GetData(const char* key) const = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_NAMED_DATA_MAP_H_
