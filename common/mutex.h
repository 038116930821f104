// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// clang's thread-safety annotations (common/thread_annotations.h), so that
// the analysis can check every member marked EF_GUARDED_BY(mu_) is touched
// only with mu_ held. Use these instead of std::mutex in service/ and
// loadtest/.
//
//   MutexLock lock(&mu_);            // holds mu_ until the end of the scope
//   while (queue_.empty()) cv_.Wait(&mu_);
//
// CondVar waits on the Mutex itself: the caller holds it before and after
// (it is released while waiting), and re-checks its condition in a loop
// (wakeups may be spurious). The analysis sees the guarded reads in that
// loop in the caller's own body, which it would not inside a predicate
// lambda.
//
// Thread-safe (that is what they are for); not copyable or movable.

#ifndef EDGEFLEET_COMMON_MUTEX_H_
#define EDGEFLEET_COMMON_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "common/thread_annotations.h"

namespace edgefleet {

class EF_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() EF_ACQUIRE() { mu_.lock(); }
  void Unlock() EF_RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Locks a Mutex for the lifetime of the object.
class EF_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) EF_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() EF_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases *mu, blocks until notified (or a spurious wakeup), locks *mu.
  void Wait(Mutex* mu) EF_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // *mu stays locked, owned by the caller
  }
  // As Wait, but returns after `timeout` at the latest.
  void WaitFor(Mutex* mu, std::chrono::nanoseconds timeout) EF_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait_for(lock, timeout);
    lock.release();
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_COMMON_MUTEX_H_
