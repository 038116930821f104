// ModelPool: loaded models kept warm for ModelInfer, per (stack, model,
// kernels). Take() returns an idle instance or loads a new one; the lease
// gives it back on destruction. At most `max_idle` idle instances are kept
// per key (the rest are freed), so memory stays bounded by the number of
// requests that can be in flight.
//
// Thread-safe. Leases must not outlive the pool.

#ifndef EDGEFLEET_SERVICE_MODEL_POOL_H_
#define EDGEFLEET_SERVICE_MODEL_POOL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "service/host_calibration.h"
#include "service/model_repository.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {

class ModelPool {
 public:
  ModelPool(ModelRepository* repository, size_t max_idle)
      : repository_(repository), max_idle_(max_idle) {}

  class Lease {
   public:
    Lease(Lease&&) = default;
    ~Lease();
    LoadedModel* operator->() const { return model_.get(); }
    LoadedModel& operator*() const { return *model_; }

   private:
    friend class ModelPool;
    Lease(ModelPool* pool, std::string key, std::unique_ptr<LoadedModel> model)
        : pool_(pool), key_(std::move(key)), model_(std::move(model)) {}
    ModelPool* pool_;
    std::string key_;
    std::unique_ptr<LoadedModel> model_;
  };

  // Errors: the repository's and the stack's.
  absl::StatusOr<Lease> Take(const CostKey& key) EF_EXCLUDES(mu_);

 private:
  void Return(const std::string& key, std::unique_ptr<LoadedModel> model) EF_EXCLUDES(mu_);

  ModelRepository* repository_;
  const size_t max_idle_;
  Mutex mu_;
  std::map<std::string, std::vector<std::unique_ptr<LoadedModel>>> idle_ EF_GUARDED_BY(mu_);
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_MODEL_POOL_H_
