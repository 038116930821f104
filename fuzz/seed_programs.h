// Small valid programs built with ProgramBuilder: the embedded seeds of the
// structure-aware fuzz target and part of the committed seed corpora
// (written by edgefleet-fuzz-seeds). Each exercises a different part of the
// executor: kernels with scalar, list and tensor-list arguments, constants
// (segment and deprecated inline), control flow, dynamic shapes, dim
// orders, delegates and several methods.

#ifndef EDGEFLEET_FUZZ_SEED_PROGRAMS_H_
#define EDGEFLEET_FUZZ_SEED_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace edgefleet {
namespace fuzz {

struct SeedProgram {
  std::string name;
  std::vector<uint8_t> bytes;
};

// Builds every seed (deterministic). Thread-compatible.
std::vector<SeedProgram> BuildSeedPrograms();

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_SEED_PROGRAMS_H_
