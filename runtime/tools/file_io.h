// Whole-file reads and writes for edgefleet-run (heap allowed: a host tool).
//
// Stateless functions; thread-safe. Errors are recorded with SetErrorDetail
// (naming the path and the system's reason) before they are returned.

#ifndef EDGEFLEET_RUNTIME_TOOLS_FILE_IO_H_
#define EDGEFLEET_RUNTIME_TOOLS_FILE_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.h"

namespace edgefleet {
namespace tools {

// Files larger than this are refused by ReadFileBytes.
inline constexpr uint64_t kMaxReadFileBytes = uint64_t{4} << 30;

// The contents of `path`. Errors: kAccessFailed (cannot open or read, not a
// regular file, larger than kMaxReadFileBytes).
Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

// Replaces the contents of `path`. Errors: kAccessFailed.
Error WriteFileBytes(const std::string& path, const std::vector<uint8_t>& bytes);

// Creates `path` (and missing parents) unless it is already a directory.
// Errors: kAccessFailed.
Error EnsureDirectory(const std::string& path);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_FILE_IO_H_
