// The committed fixture programs (test/fixtures/<name>/model.pte and
// model_xnnpack.pte, written by the real exporter), for tests that run every
// one of them. Paths are relative to the repository root, where ctest runs
// the tests. Stateless; thread-safe.

#ifndef EDGEFLEET_TEST_UTIL_FIXTURE_PROGRAMS_H_
#define EDGEFLEET_TEST_UTIL_FIXTURE_PROGRAMS_H_

#include <string>
#include <vector>

namespace edgefleet {
namespace testing {

inline constexpr const char* kFixtureDir = "test/fixtures";

// "<fixture>/<program file>" for every program of every fixture, sorted;
// empty when kFixtureDir is not there.
std::vector<std::string> FixturePrograms();

}  // namespace testing
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_UTIL_FIXTURE_PROGRAMS_H_
