#include "service/compute_slots.h"

#include <pthread.h>

#include <string>

namespace edgefleet {
namespace service {

ComputeSlots::ComputeSlots(int slots, int queue_bound, bool pin,
                           std::function<void(int)> on_inflight_change)
    : slots_(slots),
      queue_bound_(queue_bound),
      pin_(pin),
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
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !free_.empty(); });
  const int index = free_.back();
  free_.pop_back();
  lock.unlock();
  return Slot(this, index);
}

void ComputeSlots::Release(int index) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(index);
  }
  cv_.notify_one();
}

absl::Status ComputeSlots::TryAdmit(std::unique_ptr<Admission>* admission) {
  const int limit = slots_ + queue_bound_;
  int now = inflight_.load();
  do {
    if (now >= limit) {
      return absl::ResourceExhaustedError(
          "server busy: " + std::to_string(now) + " requests in flight (compute slots " +
          std::to_string(slots_) + " + queue bound " + std::to_string(queue_bound_) +
          "); retry later");
    }
  } while (!inflight_.compare_exchange_weak(now, now + 1));
  if (on_inflight_change_) on_inflight_change_(now + 1);
  admission->reset(new Admission(this));
  return absl::OkStatus();
}

ComputeSlots::Admission::~Admission() {
  if (owner_ != nullptr) owner_->Leave();
}

void ComputeSlots::Leave() {
  const int now = inflight_.fetch_sub(1) - 1;
  if (on_inflight_change_) on_inflight_change_(now);
}

}  // namespace service
}  // namespace edgefleet
