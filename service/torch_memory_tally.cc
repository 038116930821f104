#include "service/torch_memory_tally.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <mutex>
#include <new>

namespace edgefleet {
namespace service {
namespace {

thread_local TorchMemoryTally* current_tally = nullptr;

// Every block starts with this header, kAlignment bytes before the data.
constexpr size_t kAlignment = 64;
struct Header {
  uint64_t size;
  TorchMemoryTally* tally;
};
static_assert(sizeof(Header) <= kAlignment, "header must fit in the alignment padding");

void DeleteBlock(void* data) {
  if (data == nullptr) return;
  Header* header = reinterpret_cast<Header*>(static_cast<uint8_t*>(data) - kAlignment);
  if (header->tally != nullptr) {
    header->tally->Subtract(header->size);
    header->tally->Release();
  }
  std::free(header);
}

// Allocates like c10's default CPU allocator (64-byte aligned), with a
// header; data and context are the same pointer, so raw_allocate works.
class TallyingAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    void* block = nullptr;
    if (posix_memalign(&block, kAlignment, n + kAlignment) != 0) throw std::bad_alloc();
    Header* header = static_cast<Header*>(block);
    header->size = n;
    header->tally = TorchMemoryTally::Current();
    if (header->tally != nullptr) {
      header->tally->Retain();
      header->tally->Add(n);
    }
    void* data = static_cast<uint8_t*>(block) + kAlignment;
    return {data, data, &DeleteBlock, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &DeleteBlock; }
};

}  // namespace

TorchMemoryTally* TorchMemoryTally::Create() { return new TorchMemoryTally(); }

void TorchMemoryTally::Release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void TorchMemoryTally::Add(uint64_t bytes) {
  const uint64_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

TorchMemoryTally::Scope::Scope(TorchMemoryTally* tally) : previous_(current_tally) {
  current_tally = tally;
}

TorchMemoryTally::Scope::~Scope() { current_tally = previous_; }

TorchMemoryTally* TorchMemoryTally::Current() { return current_tally; }

void InstallTallyingCpuAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    static TallyingAllocator allocator;
    c10::SetCPUAllocator(&allocator, /*priority=*/100);
  });
}

}  // namespace service
}  // namespace edgefleet
