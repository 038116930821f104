// Stack: one on-device inference stack the emulator can run (our runtime,
// or PyTorch Mobile's lite interpreter), behind one interface so that any
// two arms can be compared.
//
// A Stack loads a model file into a LoadedModel and reports what the load
// really did: bytes read from the file, host time of the parse and init
// phases, and memory the stack allocated. A LoadedModel runs inference on
// TensorData inputs and tracks its peak memory.
//
// Thread safety: a Stack is thread-safe (Load may be called concurrently).
// A LoadedModel is used by one thread at a time.

#ifndef EDGEFLEET_SERVICE_STACK_H_
#define EDGEFLEET_SERVICE_STACK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/arm.pb.h"
#include "edgefleet/v1/device_class.pb.h"
#include "service/tensor_data.h"

namespace edgefleet {
namespace service {

struct StackOptions {
  v1::Kernels kernels = v1::KERNELS_DEFAULT;
};

// What a load did, measured on the host.
struct LoadFacts {
  uint64_t bytes_read = 0;    // from the model file
  int64_t host_parse_us = 0;  // reading + parsing the program / archive
  int64_t host_init_us = 0;   // method init (0 where the stack has no such phase)
  uint64_t memory_bytes = 0;  // allocated by the stack once loaded
  // Of memory_bytes, held by XNNPACK (prepacked weights; 0 where the
  // stack's loaded model holds none).
  uint64_t memory_xnnpack_bytes = 0;
};

class LoadedModel {
 public:
  virtual ~LoadedModel() = default;

  const LoadFacts& load_facts() const { return facts_; }

  // Runs the model. REQUIRES: inputs match the model's signature (the
  // caller validated them). Errors: the stack's, as statuses.
  virtual absl::StatusOr<std::vector<TensorData>> Run(const std::vector<TensorData>& inputs) = 0;

  // Highest memory the stack has allocated for this model so far (load and
  // every Run), in bytes.
  virtual uint64_t peak_memory_bytes() const = 0;

 protected:
  LoadFacts facts_;
};

class Stack {
 public:
  virtual ~Stack() = default;

  virtual v1::Stack id() const = 0;

  // OK if this build can run the stack; otherwise FAILED_PRECONDITION
  // saying why (e.g. built without libtorch).
  virtual absl::Status Available() const = 0;

  // OK if the stack can run on a device of `platform`; otherwise
  // FAILED_PRECONDITION saying why.
  virtual absl::Status RunsOn(v1::Platform platform) const = 0;

  // Loads `path` (a file inside the model repository). Errors: the
  // stack's, as statuses (status_mapping.h for our runtime).
  virtual absl::StatusOr<std::unique_ptr<LoadedModel>> Load(const std::string& path,
                                                            const StackOptions& options) = 0;
};

// The stack with `id`, or nullptr (never owned by the caller; lives for the
// whole process).
Stack* GetStack(v1::Stack id);

// OK if `arm` can run on `device`: its stack is in this build and runs on
// the class's platform. Otherwise FAILED_PRECONDITION naming the arm, the
// class and why. What sessions, ModelInfer, Profile and ListArms's
// restrictions all go by.
absl::Status ArmRunsOn(const v1::Arm& arm, const v1::DeviceClass& device);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_STACK_H_
