#include "service/compute_slots.h"

#include <pthread.h>

#include <chrono>
#include <string>

namespace edgefleet {
namespace service {

ComputeSlots::ComputeSlots(int slots, int queue_bound, bool pin,
                           std::function<void(int)> on_inflight_change, int per_client_bound)
    : slots_(slots),
      queue_bound_(queue_bound),
      pin_(pin),
      per_client_bound_(per_client_bound > 0 ? per_client_bound
                                             : DefaultPerClientBound(slots, queue_bound)),
      on_inflight_change_(std::move(on_inflight_change)) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &allowed)) cpus_.push_back(cpu);
    }
  }
  for (int i = slots_ - 1; i >= 0; --i) free_.push_back(i);
}

int ComputeSlots::DefaultPerClientBound(int slots, int queue_bound) {
  return (slots + queue_bound + 1) / 2;
}

std::string ComputeSlots::ClientOf(const std::string& peer) {
  if (peer.rfind("ipv4:", 0) != 0 && peer.rfind("ipv6:", 0) != 0) return peer;
  const size_t colon = peer.rfind(':');
  return colon <= 5 ? peer.substr(5) : peer.substr(5, colon - 5);
}

ComputeSlots::Slot::Slot(ComputeSlots* owner, int index) : owner_(owner), index_(index) {
  if (!owner_->pin_ || owner_->cpus_.empty()) return;
  if (pthread_getaffinity_np(pthread_self(), sizeof(saved_), &saved_) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(owner_->cpus_[index_ % owner_->cpus_.size()], &one);
  pinned_ = pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
}

ComputeSlots::Slot::Slot(Slot&& other) noexcept
    : owner_(other.owner_), index_(other.index_), pinned_(other.pinned_), saved_(other.saved_) {
  other.owner_ = nullptr;
  other.pinned_ = false;
}

ComputeSlots::Slot::~Slot() {
  if (owner_ == nullptr) return;
  if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
  owner_->Release(index_);
}

ComputeSlots::Slot ComputeSlots::Acquire() {
  int index;
  {
    MutexLock lock(&mu_);
    while (free_.empty()) cv_.Wait(&mu_);
    index = free_.back();
    free_.pop_back();
  }
  return Slot(this, index);
}

absl::Status ComputeSlots::Acquire(const std::function<bool()>& cancelled,
                                   std::unique_ptr<Slot>* slot) {
  int index;
  {
    MutexLock lock(&mu_);
    while (free_.empty()) {
      if (cancelled && cancelled()) {
        return absl::CancelledError("cancelled while waiting for a compute slot");
      }
      cv_.WaitFor(&mu_, std::chrono::milliseconds(20));
    }
    index = free_.back();
    free_.pop_back();
  }
  slot->reset(new Slot(this, index));
  return absl::OkStatus();
}

void ComputeSlots::Release(int index) {
  {
    MutexLock lock(&mu_);
    free_.push_back(index);
  }
  cv_.NotifyAll();  // a cancelled waiter may have taken a notify_one and left
}

absl::Status ComputeSlots::TryAdmit(std::unique_ptr<Admission>* admission,
                                    const std::string& client) {
  const int limit = slots_ + queue_bound_;
  int now = inflight_.load();
  do {
    if (now >= limit) {
      return absl::ResourceExhaustedError("server busy: " + std::to_string(now) +
                                          " requests in flight (compute slots " +
                                          std::to_string(slots_) + " + queue bound " +
                                          std::to_string(queue_bound_) + "); retry later");
    }
  } while (!inflight_.compare_exchange_weak(now, now + 1));
  if (!client.empty()) {
    MutexLock lock(&clients_mu_);
    int& mine = per_client_[client];
    if (mine >= per_client_bound_) {
      if (mine == 0) per_client_.erase(client);
      inflight_.fetch_sub(1);
      return absl::ResourceExhaustedError(
          "too many calls from this client: " + std::to_string(mine) + " in flight, at most " +
          std::to_string(per_client_bound_) + " per client (--max_calls_per_client); retry later");
    }
    ++mine;
  }
  if (on_inflight_change_) on_inflight_change_(now + 1);
  admission->reset(new Admission(this, client));
  return absl::OkStatus();
}

ComputeSlots::Admission::~Admission() {
  if (owner_ != nullptr) owner_->Leave(client_);
}

void ComputeSlots::Leave(const std::string& client) {
  if (!client.empty()) {
    MutexLock lock(&clients_mu_);
    auto it = per_client_.find(client);
    if (it != per_client_.end() && --it->second <= 0) per_client_.erase(it);
  }
  const int now = inflight_.fetch_sub(1) - 1;
  if (on_inflight_change_) on_inflight_change_(now);
}

}  // namespace service
}  // namespace edgefleet
