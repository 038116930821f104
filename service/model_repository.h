// ModelRepository: models are served only from one configured directory,
// by name. A model `m` is the folder <root>/m holding model.pte (the
// edgefleet stack) and optionally model.ptl (the pytorch-mobile stack, same
// weights). A name is never a path: names with a path separator, "..", a
// leading dot or characters outside [A-Za-z0-9_.-] are INVALID_ARGUMENT, and
// resolved files must stay inside the root (symlinks are checked).
//
// Thread-safe: the signature cache is mutex-guarded; everything else is
// immutable after Open().

#ifndef EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_
#define EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/arm.pb.h"
#include "service/tensor_data.h"

namespace edgefleet {
namespace service {

// Inputs and outputs of a model's "forward" method (from its .pte).
struct ModelSignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

class ModelRepository {
 public:
  // Errors: INVALID_ARGUMENT if `root` is not a readable directory.
  static absl::StatusOr<std::unique_ptr<ModelRepository>> Open(const std::string& root);

  // OK, or INVALID_ARGUMENT naming what is wrong with `name`.
  static absl::Status ValidateName(const std::string& name);

  // File name of a stack's model: "model.ptl" for the old stack; for ours
  // "model.pte", or "model_xnnpack.pte" (lowered by XnnpackPartitioner) with
  // KERNELS_XNNPACK.
  static const char* FileName(v1::Stack stack, v1::Kernels kernels = v1::KERNELS_DEFAULT);

  const std::string& root() const { return root_; }

  // Names of the folders holding a model.pte, sorted.
  std::vector<std::string> ListModels() const;

  // The file of `name` for `stack` and `kernels`. Errors: INVALID_ARGUMENT
  // (bad name), NOT_FOUND (no such model or no file for that stack).
  absl::StatusOr<std::string> ModelPath(const std::string& name, v1::Stack stack,
                                        v1::Kernels kernels = v1::KERNELS_DEFAULT) const;

  // The model's signature, read from its .pte once and cached. Errors as
  // ModelPath, plus the runtime's load errors (status_mapping.h).
  absl::StatusOr<ModelSignature> Signature(const std::string& name);

 private:
  explicit ModelRepository(std::string root) : root_(std::move(root)) {}

  const std::string root_;  // realpath of the configured directory
  std::mutex mu_;
  std::map<std::string, ModelSignature> signatures_;  // guarded by mu_
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_
