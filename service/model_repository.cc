#include "service/model_repository.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "runtime/executor/method_meta.h"
#include "runtime/module/module.h"
#include "service/status_mapping.h"

namespace edgefleet {
namespace service {
namespace {

constexpr size_t kMaxNameLength = 64;

bool RealPath(const std::string& path, std::string* out) {
  char buffer[PATH_MAX];
  if (realpath(path.c_str(), buffer) == nullptr) return false;
  *out = buffer;
  return true;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<TensorSpec> SpecOf(const char* prefix, size_t i, const Result<TensorInfo>& info) {
  if (!info.ok()) {
    return LastRuntimeErrorToStatus(info.error(), std::string("reading ") + prefix +
                                                      std::to_string(i));
  }
  TensorSpec spec;
  spec.name = prefix + std::to_string(i);
  spec.dtype = info->dtype;
  for (int32_t d : info->sizes) spec.shape.push_back(d);
  spec.dynamic = info->dynamism != ShapeDynamism::kStatic;
  return spec;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ModelRepository>> ModelRepository::Open(const std::string& root) {
  std::string real;
  struct stat st;
  if (root.empty() || !RealPath(root, &real) || stat(real.c_str(), &st) != 0 ||
      !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError("model repository '" + root +
                                      "' is not a readable directory");
  }
  return std::unique_ptr<ModelRepository>(new ModelRepository(real));
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
      return absl::InvalidArgumentError("model name contains a character outside "
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
  DIR* dir = opendir(root_.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (!ValidateName(name).ok()) continue;
    if (IsRegularFile(root_ + "/" + name + "/model.pte")) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::string> ModelRepository::ModelPath(const std::string& name,
                                                       v1::Stack stack,
                                                       v1::Kernels kernels) const {
  if (absl::Status s = ValidateName(name); !s.ok()) return s;
  const std::string path = root_ + "/" + name + "/" + FileName(stack, kernels);
  std::string real;
  if (!IsRegularFile(path) || !RealPath(path, &real)) {
    if (!IsRegularFile(root_ + "/" + name + "/model.pte")) {
      return absl::NotFoundError("model '" + name + "' is not in the repository");
    }
    return absl::NotFoundError("model '" + name + "' has no " + FileName(stack, kernels) +
                               " for this arm");
  }
  if (real.compare(0, root_.size() + 1, root_ + "/") != 0) {
    return absl::InvalidArgumentError("model '" + name + "' resolves outside the repository");
  }
  return real;
}

absl::StatusOr<ModelSignature> ModelRepository::Signature(const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = signatures_.find(name);
    if (it != signatures_.end()) return it->second;
  }
  absl::StatusOr<std::string> path = ModelPath(name, v1::STACK_EDGEFLEET);
  if (!path.ok()) return path.status();
  Result<std::unique_ptr<Module>> module = Module::Load(*path, Module::Options());
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
  std::lock_guard<std::mutex> lock(mu_);
  signatures_[name] = signature;
  return signature;
}

}  // namespace service
}  // namespace edgefleet
