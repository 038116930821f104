// Seeded random tensor contents for generated inputs (edgefleet-run, the
// server's host profiler).
//
// Values come from std::mt19937_64 (whose output sequence the C++ standard
// fixes), so a seed reproduces the same inputs on every platform:
//   floating types: uniform in [-1, 1);
//   integer types:  uniform in [0, 10);
//   bool:           0 or 1.
// Elements are drawn in memory order. Stateless apart from the generator
// passed in; thread-safe for distinct generators.

#ifndef EDGEFLEET_RUNTIME_MODULE_RANDOM_FILL_H_
#define EDGEFLEET_RUNTIME_MODULE_RANDOM_FILL_H_

#include <cstdint>
#include <random>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace edgefleet {

// Fills every element of `tensor` (numel() elements from its data pointer).
// Errors: kNotSupported (with detail) for dtypes without a generator
// (quantized, float8, bits16).
Error FillRandom(std::mt19937_64& rng, Tensor& tensor);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_MODULE_RANDOM_FILL_H_
