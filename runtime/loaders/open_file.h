// Opening a program file for the file and mmap loaders.

#ifndef EDGEFLEET_RUNTIME_LOADERS_OPEN_FILE_H_
#define EDGEFLEET_RUNTIME_LOADERS_OPEN_FILE_H_

#include <cstddef>

#include "runtime/core/result.h"

namespace edgefleet {
namespace internal {

struct OpenedFile {
  int fd;       // owned by the caller, who must close it
  size_t size;  // bytes
};

// Opens `path` read-only. Errors: kAccessFailed if it cannot be opened or
// is not a regular file (detail names the path and the reason).
Result<OpenedFile> OpenRegularFile(const char* path);

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_LOADERS_OPEN_FILE_H_
