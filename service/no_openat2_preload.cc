// Test-only LD_PRELOAD library: makes syscall(SYS_openat2, ...) fail with
// ENOSYS, as on a kernel before 5.6 or under a seccomp filter refusing it,
// so the model repository's O_NOFOLLOW fallback runs on any machine
// (ctest service.ModelRepositoryWithoutOpenat2). Every other syscall number
// goes to libc's syscall(). Stateless; thread-safe.

#include <dlfcn.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstdarg>

extern "C" long syscall(long number, ...) {  // NOLINT: replaces libc's
  va_list ap;
  va_start(ap, number);
  long args[6];
  for (long& a : args) a = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_openat2) {
    errno = ENOSYS;
    return -1;
  }
  using Syscall = long (*)(long, ...);
  static const Syscall real = reinterpret_cast<Syscall>(dlsym(RTLD_NEXT, "syscall"));
  return real(number, args[0], args[1], args[2], args[3], args[4], args[5]);
}
