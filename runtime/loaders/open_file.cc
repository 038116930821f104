#include "runtime/loaders/open_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace internal {

Result<OpenedFile> OpenRegularFile(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  EF_CHECK_OR_RETURN(fd >= 0, Error::kAccessFailed, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    EF_FAIL(Error::kAccessFailed, "%s is not a regular file", path);
  }
  return OpenedFile{fd, static_cast<size_t>(st.st_size)};
}

}  // namespace internal
}  // namespace edgefleet
