// ComputeSlots: exclusive host compute slots for measurements, plus the
// server's admission control.
//
// A slot is one host core. Real loads and inferences run while holding a
// slot, so no two measurements share a core; with pinning on, the holding
// thread is bound to the slot's core (from the process's allowed CPU set)
// for the duration and restored afterwards. Acquire() blocks until a slot
// is free, or until the caller's `cancelled` says to give up.
//
// Admission: TryAdmit() lets at most slots + queue_bound requests into the
// server at once, and at most per_client_bound of them from one client (the
// peer's host, port stripped: one host cannot fill the queue by opening many
// connections); beyond that it fails at once with RESOURCE_EXHAUSTED (the
// caller answers the RPC with it instead of queueing without bound).
//
// Thread-safe.

#ifndef EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_
#define EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_

#include <sched.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/mutex.h"

namespace edgefleet {
namespace service {

class ComputeSlots {
 public:
  // REQUIRES: slots >= 1, queue_bound >= 0. `per_client_bound` <= 0 means
  // DefaultPerClientBound(slots, queue_bound). `on_inflight_change` (may be
  // empty) is called with the new in-flight count after every change.
  ComputeSlots(int slots, int queue_bound, bool pin,
               std::function<void(int)> on_inflight_change = {}, int per_client_bound = 0);

  // Half of what the server admits, rounded up: (slots + queue_bound + 1) / 2.
  static int DefaultPerClientBound(int slots, int queue_bound);

  // The client key of a gRPC peer string: "ipv4:10.0.0.7:5123" -> "10.0.0.7",
  // "ipv6:[::1]:5123" -> "[::1]"; anything else is kept whole.
  static std::string ClientOf(const std::string& peer);

  int slots() const { return slots_; }
  int queue_bound() const { return queue_bound_; }
  int per_client_bound() const { return per_client_bound_; }
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
  Slot Acquire() EF_EXCLUDES(mu_);
  // Waits for a slot, checking `cancelled` (may be empty) at least every
  // 20 ms; CANCELLED once it returns true.
  absl::Status Acquire(const std::function<bool()>& cancelled, std::unique_ptr<Slot>* slot)
      EF_EXCLUDES(mu_);

  // An admitted request; leaves on destruction.
  class Admission {
   public:
    Admission(const Admission&) = delete;
    Admission& operator=(const Admission&) = delete;
    ~Admission();

   private:
    friend class ComputeSlots;
    Admission(ComputeSlots* owner, std::string client)
        : owner_(owner), client_(std::move(client)) {}
    ComputeSlots* owner_;
    const std::string client_;
  };
  // OK and an admission, or RESOURCE_EXHAUSTED when slots + queue_bound
  // requests are already in, or per_client_bound of them come from `client`
  // (ClientOf(peer); empty: no per-client bound).
  absl::Status TryAdmit(std::unique_ptr<Admission>* admission, const std::string& client = "");

 private:
  void Release(int index) EF_EXCLUDES(mu_);
  void Leave(const std::string& client);

  const int slots_;
  const int queue_bound_;
  const bool pin_;
  const int per_client_bound_;
  std::vector<int> cpus_;  // allowed CPUs; slot i pins to cpus_[i % size]
  std::function<void(int)> on_inflight_change_;
  Mutex mu_;
  CondVar cv_;  // free_ gained a slot
  std::vector<int> free_ EF_GUARDED_BY(mu_);
  std::atomic<int> inflight_{0};
  Mutex clients_mu_;
  std::map<std::string, int> per_client_ EF_GUARDED_BY(clients_mu_);  // in-flight calls by client
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_COMPUTE_SLOTS_H_
