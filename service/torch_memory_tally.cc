#include "service/torch_memory_tally.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>

namespace edgefleet {
namespace service {
namespace {

thread_local TorchMemoryTally* current_tally = nullptr;

// Every block carries this header immediately before the data; the data is
// `offset` bytes into the block (a multiple of the alignment, so the data
// stays aligned and the header fits in front of it).
struct Header {
  void* block;
  uint64_t size;
  TorchMemoryTally* tally;
  TorchMemoryTally::Source source;
};
constexpr size_t kMinAlignment = 64;  // c10's default CPU alignment

Header* HeaderOf(void* data) { return reinterpret_cast<Header*>(data) - 1; }

// Allocates `n` bytes aligned to `alignment` (a power of two) charged to
// the calling thread's tally; nullptr when out of memory.
void* AllocateCharged(size_t alignment, size_t n, TorchMemoryTally::Source source) {
  alignment = std::max(alignment, kMinAlignment);
  const size_t offset = ((sizeof(Header) + alignment - 1) / alignment) * alignment;
  if (n > std::numeric_limits<size_t>::max() - offset) return nullptr;
  void* block = nullptr;
  if (posix_memalign(&block, alignment, n + offset) != 0) return nullptr;
  void* data = static_cast<uint8_t*>(block) + offset;
  Header* header = HeaderOf(data);
  header->block = block;
  header->size = n;
  header->tally = TorchMemoryTally::Current();
  header->source = source;
  if (header->tally != nullptr) {
    header->tally->Retain();
    header->tally->Add(source, n);
  }
  return data;
}

void FreeCharged(void* data) {
  if (data == nullptr) return;
  Header* header = HeaderOf(data);
  if (header->tally != nullptr) {
    header->tally->Subtract(header->source, header->size);
    header->tally->Release();
  }
  std::free(header->block);
}

// libtorch's CPU allocator, as c10's default (64-byte aligned); data and
// context are the same pointer, so raw_allocate works.
class TallyingAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    void* data = AllocateCharged(kMinAlignment, n, TorchMemoryTally::kTorchAllocator);
    if (data == nullptr) throw std::bad_alloc();
    return {data, data, &FreeCharged, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &FreeCharged; }
};

// XNNPACK's allocator (struct xnn_allocator). Counts its calls so that
// XnnpackTallied() can check it is the one XNNPACK uses.
std::atomic<uint64_t> xnnpack_calls{0};

void* XnnAllocate(void*, size_t size) {
  xnnpack_calls.fetch_add(1, std::memory_order_relaxed);
  return AllocateCharged(kMinAlignment, size, TorchMemoryTally::kXnnpack);
}

void* XnnAlignedAllocate(void*, size_t alignment, size_t size) {
  xnnpack_calls.fetch_add(1, std::memory_order_relaxed);
  return AllocateCharged(alignment, size, TorchMemoryTally::kXnnpack);
}

// Moves the block into one charged to the calling thread's tally (XNNPACK
// reallocates its operators' indirection buffers when they are set up).
void* XnnReallocate(void*, void* pointer, size_t size) {
  xnnpack_calls.fetch_add(1, std::memory_order_relaxed);
  void* data = AllocateCharged(kMinAlignment, size, TorchMemoryTally::kXnnpack);
  if (data == nullptr) return nullptr;  // the old block stays valid, as realloc
  if (pointer != nullptr) {
    std::memcpy(data, pointer, std::min<uint64_t>(size, HeaderOf(pointer)->size));
    FreeCharged(pointer);
  }
  return data;
}

void XnnDeallocate(void*, void* pointer) { FreeCharged(pointer); }

const xnn_allocator kXnnAllocator = {
    /*context=*/nullptr, XnnAllocate,        XnnReallocate,
    XnnDeallocate,       XnnAlignedAllocate, XnnDeallocate,
};

bool xnnpack_tallied = false;

// Whether XNNPACK allocates through kXnnAllocator: creates (and deletes) a
// small operator and sees whether the allocator was called.
bool CheckXnnpackTallied() {
  if (xnn_initialize(&kXnnAllocator) != xnn_status_success) return false;
  const uint64_t before = xnnpack_calls.load();
  xnn_operator_t op = nullptr;
  if (xnn_create_clamp_nc_f32(1, 1, 1, 0.0f, 1.0f, 0, &op) != xnn_status_success) return false;
  xnn_delete_operator(op);
  return xnnpack_calls.load() > before;
}

}  // namespace

TorchMemoryTally* TorchMemoryTally::Create() { return new TorchMemoryTally(); }

void TorchMemoryTally::Release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void TorchMemoryTally::Add(Source source, uint64_t bytes) {
  by_source_[source].fetch_add(bytes, std::memory_order_relaxed);
  const uint64_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void TorchMemoryTally::Subtract(Source source, uint64_t bytes) {
  by_source_[source].fetch_sub(bytes, std::memory_order_relaxed);
  current_.fetch_sub(bytes, std::memory_order_relaxed);
}

TorchMemoryTally::Scope::Scope(TorchMemoryTally* tally) : previous_(current_tally) {
  current_tally = tally;
}

TorchMemoryTally::Scope::~Scope() { current_tally = previous_; }

TorchMemoryTally* TorchMemoryTally::Current() { return current_tally; }

void InstallTallyingAllocators() {
  static std::once_flag once;
  std::call_once(once, [] {
    static TallyingAllocator allocator;
    c10::SetCPUAllocator(&allocator, /*priority=*/100);
    xnnpack_tallied = CheckXnnpackTallied();
  });
}

bool XnnpackTallied() { return xnnpack_tallied; }

}  // namespace service
}  // namespace edgefleet
