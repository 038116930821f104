// ComputeSlots: exclusive host compute slots for measurements, plus the
// server's admission control.
//
// A slot is one host core. Real loads and inferences run while holding a
// slot, so no two measurements share a core; with pinning on, the holding
// thread is bound to the slot's core (from the process's allowed CPU set)
// for the duration and restored afterwards. Acquire() blocks until a slot
// is free.
//
// Admission: TryAdmit() lets at most slots + queue_bound requests into the
// server at once; beyond that it fails at once with RESOURCE_EXHAUSTED (the
// caller answers the RPC with it instead of queueing without bound).
//
// Thread-safe.

#ifndef EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_
#define EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"

namespace edgefleet {
namespace service {

class ComputeSlots {
 public:
  // REQUIRES: slots >= 1, queue_bound >= 0. `on_inflight_change` (may be
  // empty) is called with the new in-flight count after every change.
  ComputeSlots(int slots, int queue_bound, bool pin,
               std::function<void(int)> on_inflight_change = {});

  int slots() const { return slots_; }
  int queue_bound() const { return queue_bound_; }
  int inflight() const { return inflight_.load(); }

  // Holds one slot; releases it (and restores the thread's CPU affinity) on
  // destruction.
  class Slot {
   public:
    Slot(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();
    int index() const { return index_; }

   private:
    friend class ComputeSlots;
    Slot(ComputeSlots* owner, int index);
    ComputeSlots* owner_;
    int index_;
    bool pinned_ = false;
    cpu_set_t saved_;
  };
  Slot Acquire();

  // An admitted request; leaves on destruction.
  class Admission {
   public:
    Admission(Admission&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Admission(const Admission&) = delete;
    Admission& operator=(const Admission&) = delete;
    ~Admission();

   private:
    friend class ComputeSlots;
    explicit Admission(ComputeSlots* owner) : owner_(owner) {}
    ComputeSlots* owner_;
  };
  // OK and an admission, or RESOURCE_EXHAUSTED when slots + queue_bound
  // requests are already in.
  absl::Status TryAdmit(std::unique_ptr<Admission>* admission);

 private:
  void Release(int index);
  void Leave();

  const int slots_;
  const int queue_bound_;
  const bool pin_;
  std::vector<int> cpus_;  // allowed CPUs; slot i pins to cpus_[i % size]
  std::function<void(int)> on_inflight_change_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> free_;  // guarded by mu_
  std::atomic<int> inflight_{0};
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_
