#include "service/model_repository.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "edgefleet/v1/model_bounds.pb.h"
#include "runtime/executor/method_meta.h"
#include "runtime/module/module.h"
#include "service/status_mapping.h"
#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

constexpr size_t kMaxNameLength = 64;

// Opens `relative` (components separated by '/', none of them "..")
// beneath `dir_fd` for reading: the descriptor, or -1 with errno (EXDEV or
// ELOOP for a symbolic link refused). O_NONBLOCK so that a FIFO planted in
// the repository cannot block the open; it changes nothing for regular
// files.
int OpenReadBeneath(int dir_fd, const std::string& relative) {
  constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  open_how how;
  memset(&how, 0, sizeof(how));
  how.flags = kFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
  // ENOSYS: kernel before 5.6; EPERM: a seccomp filter that refuses it.
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
#endif
  // Without openat2: one component at a time, refusing every link.
  int current = dir_fd;
  size_t begin = 0;
  for (;;) {
    const size_t slash = relative.find('/', begin);
    const std::string part = relative.substr(begin, slash - begin);
    const int next =
        slash == std::string::npos
            ? openat(current, part.c_str(), kFlags | O_NOFOLLOW)
            : openat(current, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    struct stat st;
    // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR: say ELOOP.
    if (next < 0 && saved == ENOTDIR &&
        fstatat(current, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      saved = ELOOP;
    }
    if (current != dir_fd) close(current);
    errno = saved;
    if (next < 0 || slash == std::string::npos) return next;
    current = next;
    begin = slash + 1;
  }
}

absl::StatusOr<TensorSpec> SpecOf(const char* prefix, size_t i, const Result<TensorInfo>& info) {
  if (!info.ok()) {
    return LastRuntimeErrorToStatus(info.error(),
                                    std::string("reading ") + prefix + std::to_string(i));
  }
  TensorSpec spec;
  spec.name = prefix + std::to_string(i);
  spec.dtype = info->dtype;
  for (int32_t d : info->sizes) spec.shape.push_back(d);
  spec.dynamic = info->dynamism != ShapeDynamism::kStatic;
  return spec;
}

// Applies `listed` (one field of input_bounds.textproto) to `specs`: every
// dynamic tensor must be listed; a listed static one must match its sizes.
// Errors: FAILED_PRECONDITION naming the file.
absl::Status ApplyBounds(const google::protobuf::RepeatedPtrField<v1::TensorBounds>& listed,
                         const std::string& model, std::vector<TensorSpec>* specs) {
  for (TensorSpec& spec : *specs) {
    const v1::TensorBounds* found = nullptr;
    for (const v1::TensorBounds& b : listed) {
      if (b.name() == spec.name) found = &b;
    }
    if (found == nullptr) {
      if (!spec.dynamic) continue;
      return absl::FailedPreconditionError(
          "model '" + model + "': input_bounds.textproto has no entry for the dynamic " +
          spec.name + " (tools/export writes one for every input and output)");
    }
    const size_t rank = spec.shape.size();
    bool ok = static_cast<size_t>(found->min_size()) == rank &&
              static_cast<size_t>(found->max_size()) == rank;
    for (size_t d = 0; ok && d < rank; ++d) {
      ok = found->min(d) >= 0 && found->min(d) <= found->max(d) && found->max(d) <= spec.shape[d] &&
           (spec.dynamic || found->min(d) == spec.shape[d]);
    }
    if (!ok) {
      return absl::FailedPreconditionError(
          "model '" + model + "': input_bounds.textproto gives " + spec.name +
          " ranges that do not fit the program's sizes " + DescribeShape("", spec.shape) +
          " (need one min <= max <= size per dimension)");
    }
    spec.min_shape.assign(found->min().begin(), found->min().end());
    spec.shape.assign(found->max().begin(), found->max().end());
  }
  return absl::OkStatus();
}

// Applies the per-dimension ranges of the model's input_bounds.textproto
// (`bounds_file`, as OpenModel would open it; model_bounds.proto) to its
// inputs and outputs (ApplyBounds). Errors: FAILED_PRECONDITION naming the
// file.
absl::Status ApplyInputBounds(const absl::StatusOr<ModelFile>& bounds_file,
                              const std::string& model, ModelSignature* signature) {
  bool any_dynamic = false;
  for (std::vector<TensorSpec>* specs : {&signature->inputs, &signature->outputs}) {
    for (TensorSpec& spec : *specs) {
      spec.min_shape = spec.shape;
      any_dynamic = any_dynamic || spec.dynamic;
    }
  }
  if (!any_dynamic) return absl::OkStatus();
  v1::InputBounds bounds;
  if (!bounds_file.ok() && bounds_file.status().code() != absl::StatusCode::kNotFound) {
    return absl::FailedPreconditionError(std::string(bounds_file.status().message()));
  }
  if (!bounds_file.ok()) {
    return absl::FailedPreconditionError(
        "model '" + model +
        "' has a bounded-dynamic input but no input_bounds.textproto "
        "saying which dimensions vary and how far (tools/export writes it; "
        "proto/edgefleet/v1/model_bounds.proto)");
  }
  if (absl::Status s = ReadTextprotoFile(bounds_file->path(), &bounds); !s.ok()) {
    return absl::FailedPreconditionError("model '" + model +
                                         "': input_bounds.textproto: " + std::string(s.message()));
  }
  if (absl::Status s = ApplyBounds(bounds.inputs(), model, &signature->inputs); !s.ok()) return s;
  return ApplyBounds(bounds.outputs(), model, &signature->outputs);
}

}  // namespace

ModelFile::ModelFile(int fd) : fd_(fd), path_("/proc/self/fd/" + std::to_string(fd)) {}

ModelFile::ModelFile(ModelFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

ModelFile& ModelFile::operator=(ModelFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

ModelFile::~ModelFile() {
  if (fd_ >= 0) close(fd_);
}

ModelRepository::~ModelRepository() { close(root_fd_); }

absl::StatusOr<std::unique_ptr<ModelRepository>> ModelRepository::Open(const std::string& root) {
  const int fd = root.empty() ? -1 : open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError("model repository '" + root +
                                      "' is not a readable directory");
  }
  return std::unique_ptr<ModelRepository>(new ModelRepository(root, fd));
}

absl::StatusOr<ModelFile> ModelRepository::OpenBeneath(const std::string& relative,
                                                       const std::string& what) const {
  const int fd = OpenReadBeneath(root_fd_, relative);
  if (fd < 0) {
    const int error = errno;
    if (error == EXDEV || error == ELOOP) {
      return absl::InvalidArgumentError(what +
                                        " resolves outside the repository (a symbolic "
                                        "link leading out of it is never followed)");
    }
    return absl::NotFoundError(what + ": " + strerror(error));
  }
  ModelFile file(fd);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::NotFoundError(what + " is not a regular file");
  }
  return file;
}

absl::Status ModelRepository::ValidateName(const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError("model name is empty");
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError("model name is longer than 64 characters");
  }
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos) {
    return absl::InvalidArgumentError("model name '" + name +
                                      "' contains a path separator; models are named, "
                                      "not addressed by path");
  }
  if (name.find("..") != std::string::npos) {
    return absl::InvalidArgumentError("model name '" + name + "' contains '..'");
  }
  if (name[0] == '.') {
    return absl::InvalidArgumentError("model name '" + name + "' starts with '.'");
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) {
      return absl::InvalidArgumentError(
          "model name contains a character outside "
          "[A-Za-z0-9_.-]");
    }
  }
  return absl::OkStatus();
}

const char* ModelRepository::FileName(v1::Stack stack, v1::Kernels kernels) {
  if (stack == v1::STACK_PYTORCH_MOBILE) return "model.ptl";
  return kernels == v1::KERNELS_XNNPACK ? "model_xnnpack.pte" : "model.pte";
}

std::vector<std::string> ModelRepository::ListModels() const {
  std::vector<std::string> names;
  const int fd = openat(root_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = fd < 0 ? nullptr : fdopendir(fd);
  if (dir == nullptr) {
    if (fd >= 0) close(fd);
    return names;
  }
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (!ValidateName(name).ok()) continue;
    if (OpenBeneath(name + "/model.pte", name).ok()) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<ModelFile> ModelRepository::OpenModel(const std::string& name, v1::Stack stack,
                                                     v1::Kernels kernels) const {
  if (absl::Status s = ValidateName(name); !s.ok()) return s;
  const std::string file_name = FileName(stack, kernels);
  absl::StatusOr<ModelFile> file =
      OpenBeneath(name + "/" + file_name, "model '" + name + "' " + file_name);
  if (file.ok() || file.status().code() != absl::StatusCode::kNotFound) return file;
  if (!OpenBeneath(name + "/model.pte", name).ok()) {
    return absl::NotFoundError("model '" + name + "' is not in the repository");
  }
  return absl::NotFoundError("model '" + name + "' has no " + file_name + " for this arm");
}

absl::StatusOr<ModelSignature> ModelRepository::Signature(const std::string& name) const {
  {
    MutexLock lock(&mu_);
    auto it = signatures_.find(name);
    if (it != signatures_.end()) return it->second;
  }
  absl::StatusOr<ModelFile> file = OpenModel(name, v1::STACK_EDGEFLEET);
  if (!file.ok()) return file.status();
  Result<std::unique_ptr<Module>> module = Module::Load(file->path(), Module::Options());
  if (!module.ok()) {
    return LastRuntimeErrorToStatus(module.error(), "loading model '" + name + "'");
  }
  Result<MethodMeta> meta = (*module)->program().method_meta("forward");
  if (!meta.ok()) {
    return LastRuntimeErrorToStatus(meta.error(), "model '" + name + "' method forward");
  }
  ModelSignature signature;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    absl::StatusOr<TensorSpec> spec = SpecOf("input_", i, meta->input_tensor_info(i));
    if (!spec.ok()) return spec.status();
    signature.inputs.push_back(*std::move(spec));
  }
  for (size_t i = 0; i < meta->num_outputs(); ++i) {
    absl::StatusOr<TensorSpec> spec = SpecOf("output_", i, meta->output_tensor_info(i));
    if (!spec.ok()) return spec.status();
    signature.outputs.push_back(*std::move(spec));
  }
  const absl::StatusOr<ModelFile> bounds =
      OpenBeneath(name + "/input_bounds.textproto", "model '" + name + "' input_bounds.textproto");
  if (absl::Status s = ApplyInputBounds(bounds, name, &signature); !s.ok()) return s;
  MutexLock lock(&mu_);
  signatures_[name] = signature;
  return signature;
}

}  // namespace service
}  // namespace edgefleet
