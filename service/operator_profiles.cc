#include "service/operator_profiles.h"

#include <cstdio>

namespace edgefleet {
namespace service {

absl::StatusOr<std::shared_ptr<const OperatorProfile>> OperatorProfiles::For(
    const v1::Arm& arm, double ridge_flops_per_byte) {
  MutexLock lock(&mu_);
  const auto key =
      std::make_tuple(static_cast<int>(arm.stack()), arm.model(), static_cast<int>(arm.kernels()));
  auto found = measured_.find(key);
  if (found != measured_.end()) return found->second;
  absl::StatusOr<ModelFile> file = repository_->OpenModel(arm.model(), arm.stack(), arm.kernels());
  if (!file.ok()) return file.status();
  fprintf(stderr, "edgefleet-server: measuring per-operator host costs of %s (arm %s)\n",
          arm.model().c_str(), arm.name().c_str());
  ProfileOptions options;
  options.ridge_flops_per_byte = ridge_flops_per_byte;
  if (absl::StatusOr<ModelSignature> signature = repository_->Signature(arm.model());
      signature.ok()) {
    options.inputs = signature->inputs;  // the old stack's .ptl declares none
  }
  absl::StatusOr<OperatorProfile> measured =
      MeasureOperatorProfile(arm.model(), file->path(), arm.stack(), arm.kernels(), options);
  if (!measured.ok()) return measured.status();
  auto shared = std::make_shared<const OperatorProfile>(*std::move(measured));
  measured_.emplace(key, shared);
  return shared;
}

}  // namespace service
}  // namespace edgefleet
