// Fuzz target (f): ParseNpy (edgefleet-run's .npy reader) over arbitrary
// bytes. Accepted arrays must be self-consistent (rank, non-negative dims,
// data size = numel * element size) and survive a SerializeNpy/ParseNpy
// round trip unchanged.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_harness.h"
#include "runtime/core/tensor.h"
#include "runtime/tools/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using edgefleet::tools::NpyArray;
  edgefleet::Result<NpyArray> array = edgefleet::tools::ParseNpy(data, size);
  if (!array.ok()) return 0;
  const NpyArray& a = *array;
  EF_FUZZ_INVARIANT(a.shape.size() <= static_cast<size_t>(edgefleet::tools::kMaxNpyRank),
                    "rank %zu", a.shape.size());
  const int64_t numel = edgefleet::CheckedNumel({a.shape.data(), a.shape.size()});
  EF_FUZZ_INVARIANT(numel >= 0 && numel == a.numel(), "numel %lld", static_cast<long long>(numel));
  EF_FUZZ_INVARIANT(a.data.size() == static_cast<size_t>(numel) * edgefleet::ElementSize(a.dtype),
                    "data size %zu for numel %lld", a.data.size(), static_cast<long long>(numel));
  EF_FUZZ_INVARIANT(a.data.size() <= size, "data larger than the file");
  edgefleet::Result<std::vector<uint8_t>> bytes = edgefleet::tools::SerializeNpy(a);
  EF_FUZZ_INVARIANT(bytes.ok(), "SerializeNpy refused an accepted array");
  edgefleet::Result<NpyArray> again = edgefleet::tools::ParseNpy(bytes->data(), bytes->size());
  EF_FUZZ_INVARIANT(
      again.ok() && again->dtype == a.dtype && again->shape == a.shape && again->data == a.data,
      "SerializeNpy/ParseNpy round trip changed the array");
  return 0;
}
