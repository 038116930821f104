// ModelRepository: models are served only from one configured directory,
// by name. A model `m` is the folder <root>/m holding model.pte (the
// edgefleet stack) and optionally model.ptl (the pytorch-mobile stack, same
// weights), plus input_bounds.textproto when an input is bounded-dynamic
// (proto/edgefleet/v1/model_bounds.proto: each dimension's [min, max]). A name is never a path:
// names with a path separator, "..", a leading dot or characters outside [A-Za-z0-9_.-] are
// INVALID_ARGUMENT. Files are opened relative to a descriptor of the root, never by a path resolved
// first and opened later: openat2(RESOLVE_BENEATH) follows only symbolic links that stay inside the
// root (a link leading out, absolute or by "..", is INVALID_ARGUMENT); on kernels without openat2
// (before 5.6, or a seccomp filter refusing it) every component is opened with O_NOFOLLOW, so every
// symbolic link is refused. Loaders read the opened descriptor (ModelFile::path()), so swapping a
// name for a link after the check changes nothing.
//
// Thread-safe: the signature cache is mutex-guarded; everything else is
// immutable after Open().

#ifndef EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_
#define EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/arm.pb.h"
#include "service/tensor_data.h"

namespace edgefleet {
namespace service {

// Inputs and outputs of a model's "forward" method (from its .pte).
struct ModelSignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

// One model file, open. The descriptor lives as long as the object; path()
// is /proc/self/fd/<fd>, the name by which path-taking loaders (our runtime,
// libtorch) open exactly this file. Move-only; not thread-safe.
class ModelFile {
 public:
  ModelFile(ModelFile&& other) noexcept;
  ModelFile& operator=(ModelFile&& other) noexcept;
  ModelFile(const ModelFile&) = delete;
  ModelFile& operator=(const ModelFile&) = delete;
  ~ModelFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  friend class ModelRepository;
  explicit ModelFile(int fd);

  int fd_ = -1;
  std::string path_;
};

class ModelRepository {
 public:
  ~ModelRepository();

  // Opens `root` (itself may be a symbolic link: it is operator
  // configuration). Errors: INVALID_ARGUMENT if it is not a readable
  // directory.
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

  // The file of `name` for `stack` and `kernels`, open. Errors:
  // INVALID_ARGUMENT (bad name, or the file resolves outside the
  // repository), NOT_FOUND (no such model, no file for that stack, or not
  // a regular file).
  absl::StatusOr<ModelFile> OpenModel(const std::string& name, v1::Stack stack,
                                      v1::Kernels kernels = v1::KERNELS_DEFAULT) const;

  // The model's signature, read from its .pte once and cached. Errors as
  // OpenModel, plus the runtime's load errors (status_mapping.h).
  absl::StatusOr<ModelSignature> Signature(const std::string& name) const EF_EXCLUDES(mu_);

 private:
  ModelRepository(std::string root, int root_fd) : root_(std::move(root)), root_fd_(root_fd) {}

  // `relative` ("<model>/<file>") opened beneath the root. Errors as
  // OpenModel; `what` names the file in messages.
  absl::StatusOr<ModelFile> OpenBeneath(const std::string& relative, const std::string& what) const;

  const std::string root_;  // the configured directory, for messages
  const int root_fd_;       // O_PATH descriptor of the root, owned
  mutable Mutex mu_;
  mutable std::map<std::string, ModelSignature> signatures_ EF_GUARDED_BY(mu_);  // a cache
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_MODEL_REPOSITORY_H_
