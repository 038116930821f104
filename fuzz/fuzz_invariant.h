// EF_FUZZ_INVARIANT: the oracle of every fuzz target. A broken invariant
// prints "INVARIANT VIOLATED: <message>", where it is checked and the
// runtime's last error detail, then aborts, which libFuzzer and the replay
// main report as a crash. Its own header and library so targets outside the
// runtime (request_decode_fuzzer, config_fuzzer) need not link the kernels.

#ifndef EDGEFLEET_FUZZ_FUZZ_INVARIANT_H_
#define EDGEFLEET_FUZZ_FUZZ_INVARIANT_H_

// Aborts with a message if `cond` is false (fuzzing oracle).
#define EF_FUZZ_INVARIANT(cond, ...) \
  ((cond) ? (void)0                  \
          : ::edgefleet::fuzz::internal::InvariantFailed(#cond, __FILE__, __LINE__, __VA_ARGS__))

namespace edgefleet {
namespace fuzz {
namespace internal {
[[noreturn]] void InvariantFailed(const char* cond, const char* file, int line, const char* format,
                                  ...) __attribute__((format(printf, 4, 5)));
}  // namespace internal
}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_FUZZ_INVARIANT_H_
