#include "runtime/tools/file_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

}  // namespace

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  FilePtr file(fopen(path.c_str(), "rb"));
  EF_CHECK_OR_RETURN(file != nullptr, Error::kAccessFailed, "cannot open %s: %s", path.c_str(),
                     strerror(errno));
  struct stat st;
  EF_CHECK_OR_RETURN(fstat(fileno(file.get()), &st) == 0 && S_ISREG(st.st_mode),
                     Error::kAccessFailed, "%s is not a regular file", path.c_str());
  EF_CHECK_OR_RETURN(static_cast<uint64_t>(st.st_size) <= kMaxReadFileBytes, Error::kAccessFailed,
                     "%s is too large (%lld bytes)", path.c_str(),
                     static_cast<long long>(st.st_size));
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  const size_t got = bytes.empty() ? 0 : fread(bytes.data(), 1, bytes.size(), file.get());
  EF_CHECK_OR_RETURN(got == bytes.size() && !ferror(file.get()), Error::kAccessFailed,
                     "cannot read %s: %s", path.c_str(),
                     ferror(file.get()) ? strerror(errno) : "file changed while reading");
  return bytes;
}

Error WriteFileBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  FilePtr file(fopen(path.c_str(), "wb"));
  EF_CHECK_OR_RETURN(file != nullptr, Error::kAccessFailed, "cannot create %s: %s", path.c_str(),
                     strerror(errno));
  const size_t put = bytes.empty() ? 0 : fwrite(bytes.data(), 1, bytes.size(), file.get());
  EF_CHECK_OR_RETURN(put == bytes.size(), Error::kAccessFailed, "cannot write %s: %s", path.c_str(),
                     strerror(errno));
  EF_CHECK_OR_RETURN(fclose(file.release()) == 0, Error::kAccessFailed, "cannot write %s: %s",
                     path.c_str(), strerror(errno));
  return Error::kOk;
}

Error EnsureDirectory(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    EF_CHECK_OR_RETURN(S_ISDIR(st.st_mode), Error::kAccessFailed, "%s is not a directory",
                       path.c_str());
    return Error::kOk;
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    EF_RETURN_IF_ERROR(EnsureDirectory(path.substr(0, slash)));
  }
  EF_CHECK_OR_RETURN(mkdir(path.c_str(), 0777) == 0 || errno == EEXIST, Error::kAccessFailed,
                     "cannot create directory %s: %s", path.c_str(), strerror(errno));
  return Error::kOk;
}

}  // namespace tools
}  // namespace edgefleet
