#include "service/model_pool.h"

namespace edgefleet {
namespace service {

ModelPool::Lease::~Lease() {
  if (pool_ != nullptr && model_ != nullptr) pool_->Return(key_, std::move(model_));
}

absl::StatusOr<ModelPool::Lease> ModelPool::Take(const CostKey& key) {
  const std::string id =
      std::to_string(key.stack) + "/" + key.model + "/" + std::to_string(key.kernels);
  {
    MutexLock lock(&mu_);
    auto& idle = idle_[id];
    if (!idle.empty()) {
      std::unique_ptr<LoadedModel> model = std::move(idle.back());
      idle.pop_back();
      return Lease(this, id, std::move(model));
    }
  }
  Stack* stack = GetStack(key.stack);
  if (stack == nullptr) return absl::InvalidArgumentError("unknown stack");
  if (absl::Status s = stack->Available(); !s.ok()) return s;
  absl::StatusOr<ModelFile> file = repository_->OpenModel(key.model, key.stack, key.kernels);
  if (!file.ok()) return file.status();
  StackOptions options;
  options.kernels = key.kernels;
  absl::StatusOr<std::unique_ptr<LoadedModel>> model = stack->Load(file->path(), options);
  if (!model.ok()) return model.status();
  return Lease(this, id, *std::move(model));
}

void ModelPool::Return(const std::string& key, std::unique_ptr<LoadedModel> model) {
  MutexLock lock(&mu_);
  auto& idle = idle_[key];
  if (idle.size() < max_idle_) idle.push_back(std::move(model));
}

}  // namespace service
}  // namespace edgefleet
