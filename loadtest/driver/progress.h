// A one-line progress bar ("[#####.....] 120/400 sessions") redrawn with
// '\r' on a terminal stream; does nothing when constructed with nullptr
// (the cli passes stderr only when it is a TTY, so logs stay quiet).
// Update() is thread-safe; redraws at most every 1 % of the total.

#ifndef EDGEFLEET_LOADTEST_DRIVER_PROGRESS_H_
#define EDGEFLEET_LOADTEST_DRIVER_PROGRESS_H_

#include <cstddef>
#include <ostream>
#include <string>

#include "common/mutex.h"

namespace edgefleet {
namespace loadtest {

class ProgressBar {
 public:
  ProgressBar(std::ostream* out, size_t total) : out_(out), total_(total) {}

  void Update(size_t done) EF_EXCLUDES(mu_) {
    if (out_ == nullptr || total_ == 0) return;
    MutexLock lock(&mu_);
    if (done < drawn_ + total_ / 100 && done != total_) return;
    drawn_ = done;
    const size_t width = 30;
    const size_t filled = width * done / total_;
    *out_ << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done
          << "/" << total_ << " sessions" << std::flush;
  }
  void Finish() {
    if (out_ != nullptr && total_ > 0) *out_ << "\n" << std::flush;
  }

 private:
  std::ostream* out_;
  size_t total_;
  Mutex mu_;
  size_t drawn_ EF_GUARDED_BY(mu_) = 0;
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_DRIVER_PROGRESS_H_
