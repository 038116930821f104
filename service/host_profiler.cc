#include "service/host_profiler.h"

#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "common/mutex.h"
#include "runtime/devtools/trace_recorder.h"
#include "runtime/executor/method.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/method_inputs.h"
#include "runtime/module/module.h"
#include "runtime/platform/clock.h"
#include "service/host_thread_scaling.h"
#include "service/op_classes.h"
#include "service/pytorch_mobile_profiler.h"
#include "service/status_mapping.h"
#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

constexpr const char* kMethod = "forward";
// Instructions shorter than this do not set the ridge point (clock noise).
constexpr double kRidgeMinNanos = 20000;

// Records of one traced execute: room for every instruction and the
// execute event, plus delegate nodes; doubled (up to kMaxRecords) when a
// run drops events.
constexpr size_t kMaxRecords = size_t{1} << 20;

// Median of `v` (0 when empty); reorders v.
double Median(std::vector<uint64_t>* v) {
  if (v->empty()) return 0;
  std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(v->size() / 2), v->end());
  return static_cast<double>((*v)[v->size() / 2]);
}

// Bytes per nanosecond (read + written) one core moves copying buffers
// much larger than the caches: the best of 5 copies of 32 MiB.
double CopyBandwidthBytesPerNs() {
  constexpr size_t kBytes = 32u << 20;
  std::vector<char> a(kBytes, 1), b(kBytes, 0);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    const uint64_t start = ThreadCpuNanos();
    std::memcpy(b.data(), a.data(), kBytes);
    const uint64_t elapsed = std::max<uint64_t>(1, ThreadCpuNanos() - start);
    best = std::max(best, 2.0 * kBytes / static_cast<double>(elapsed));
    a[static_cast<size_t>(i)] = b[kBytes - 1 - static_cast<size_t>(i)];  // keep the copy live
  }
  return best;
}

}  // namespace

absl::StatusOr<v1::ModelHostProfile> MeasureHostProfile(const std::string& model,
                                                        const std::string& path, v1::Stack stack,
                                                        v1::Kernels kernels,
                                                        const ProfileOptions& options) {
  absl::StatusOr<OperatorProfile> measured =
      MeasureOperatorProfile(model, path, stack, kernels, options);
  if (!measured.ok()) return measured.status();
  if (stack == v1::STACK_EDGEFLEET) {
    absl::StatusOr<ThreadScaling> scaling =
        MeasureThreadScaling(model, path, kernels, options.warmup, options.runs);
    if (scaling.ok()) {
      SetThreadScaling(*scaling, &measured->summary);
    } else if (!absl::IsFailedPrecondition(scaling.status())) {
      return scaling.status();
    }  // one CPU: not measured
  }
  return std::move(measured->summary);
}

absl::StatusOr<OperatorProfile> MeasureOperatorProfile(const std::string& model,
                                                       const std::string& path, v1::Stack stack,
                                                       v1::Kernels kernels,
                                                       const ProfileOptions& options) {
  if (stack == v1::STACK_PYTORCH_MOBILE) {
    if (kernels != v1::KERNELS_DEFAULT) {
      return absl::InvalidArgumentError("the pytorch-mobile stack has only its default kernels");
    }
    return MeasurePytorchMobileOperators(model, path, options);
  }
  if (stack != v1::STACK_EDGEFLEET) return absl::InvalidArgumentError("no stack given");
  if (RegisterPortableKernels() != Error::kOk || RegisterOptimizedKernels(1) != Error::kOk) {
    return absl::InternalError("registering kernels failed");
  }
  OperatorProfile profile;
  v1::ModelHostProfile& out = profile.summary;
  out.set_stack(stack);
  out.set_model(model);
  out.set_kernels(kernels);
  uint64_t bytes = 0;
  std::string digest;
  if (absl::Status s = FileStamp(path, &bytes, &digest); !s.ok()) return s;
  out.set_file_bytes(bytes);
  out.set_file_digest(digest);

  Module::Options module_options;
  module_options.load_mode = Module::LoadMode::kMmap;
  module_options.method.num_threads = 1;
  module_options.method.kernels = kernels == v1::KERNELS_PORTABLE
                                      ? KernelPreference::kPortableOnly
                                      : KernelPreference::kOptimizedFirst;
  Result<std::unique_ptr<Module>> module = Module::Load(path, module_options);
  if (!module.ok()) return LastRuntimeErrorToStatus(module.error(), "loading " + model);
  Result<Method*> loaded = (*module)->LoadMethod(kMethod);
  if (!loaded.ok()) return LastRuntimeErrorToStatus(loaded.error(), "loading " + model);
  Method& method = **loaded;
  Result<MethodInputs> inputs = MethodInputs::Random(method.meta(), /*seed=*/1);
  if (!inputs.ok()) return LastRuntimeErrorToStatus(inputs.error(), "inputs of " + model);

  const int runs = std::max(1, options.runs);
  const size_t n = method.num_instructions();
  std::vector<TraceRecord> records(std::min(kMaxRecords, 4 * n + 256));
  std::vector<std::vector<uint64_t>> instruction_nanos(n);  // per instruction, per run
  std::vector<double> totals;
  for (int i = 0; i < std::max(0, options.warmup) + runs; ++i) {
    const bool observed = i >= options.warmup;
    // Timed without the tracer, profiled with it (its clock reads would
    // inflate the total).
    for (int pass = 0; pass < (observed ? 2 : 1); ++pass) {
      TraceRecorder recorder(Span<TraceRecord>(records.data(), records.size()),
                             TraceClock::kThreadCpu);
      method.set_event_tracer(pass == 1 ? &recorder : nullptr);
      if (Error e = inputs->Apply(method); e != Error::kOk) {
        method.set_event_tracer(nullptr);
        return LastRuntimeErrorToStatus(e, "inputs of " + model);
      }
      const uint64_t start = ThreadCpuNanos();
      const Error e = method.Execute();
      const uint64_t elapsed = ThreadCpuNanos() - start;
      method.set_event_tracer(nullptr);
      if (e != Error::kOk) return LastRuntimeErrorToStatus(e, "executing " + model);
      if (observed && pass == 0) totals.push_back(static_cast<double>(elapsed));
      if (pass == 0) continue;
      if (recorder.dropped() > 0) {
        // Delegate nodes filled the buffer: a larger one, and this run again.
        if (records.size() >= kMaxRecords) {
          return absl::ResourceExhaustedError(model + ": more than " + std::to_string(kMaxRecords) +
                                              " trace events in one execute");
        }
        records.resize(std::min(kMaxRecords, 2 * records.size()));
        --pass;
        continue;
      }
      std::vector<uint64_t> run(n, 0);
      for (size_t r = 0; r < recorder.size(); ++r) {
        const TraceRecord& record = recorder.record(r);
        if (record.event.kind == TraceEventKind::kInstruction && record.event.instruction >= 0 &&
            static_cast<size_t>(record.event.instruction) < n) {
          run[static_cast<size_t>(record.event.instruction)] += record.end_ns - record.start_ns;
        }
      }
      for (size_t pc = 0; pc < n; ++pc) instruction_nanos[pc].push_back(run[pc]);
    }
  }
  std::sort(totals.begin(), totals.end());
  out.set_total_us(totals[totals.size() / 2] / 1e3);
  out.set_runs(static_cast<uint32_t>(runs));

  // Work and median time of every executed instruction.
  for (size_t pc = 0; pc < n; ++pc) {
    const std::string kind = method.instruction_kind(pc);
    if (kind == "folded" || kind == "fused" || kind == "control") continue;
    char name[128];
    if (!method.instruction_name(pc, name, sizeof(name))) name[0] = '\0';
    ProfiledOperator op;
    op.name = name;
    op.kernel = kind;
    op.work = OperatorWork(name, method.instruction_args(pc));
    op.nanos = Median(&instruction_nanos[pc]);
    if (kind == "delegate") op.work.compute_kernel = true, op.work.flops = 0;
    profile.operators.push_back(std::move(op));
  }
  SummarizeOperators(&profile.operators, options, &out);
  return profile;
}

void SummarizeOperators(std::vector<ProfiledOperator>* ops, const ProfileOptions& options,
                        v1::ModelHostProfile* out) {
  double peak_flops_per_ns = 0;
  for (const ProfiledOperator& op : *ops) {
    if (op.nanos >= kRidgeMinNanos && op.work.compute_kernel && op.work.flops > 0) {
      peak_flops_per_ns = std::max(peak_flops_per_ns, op.work.flops / op.nanos);
    }
  }
  const double ridge = options.ridge_flops_per_byte > 0 ? options.ridge_flops_per_byte
                       : peak_flops_per_ns > 0 ? peak_flops_per_ns / CopyBandwidthBytesPerNs()
                                               : kDefaultRidgeFlopsPerByte;
  out->set_ridge_flops_per_byte(ridge);
  v1::OpClassCost costs[kNumOpClasses];
  for (int c = 0; c < kNumOpClasses; ++c) costs[c].set_op_class(kOpClasses[c]);
  for (ProfiledOperator& op : *ops) {
    // A delegate (flops unknown) is dense whatever the ridge.
    op.op_class = op.work.compute_kernel && op.work.flops == 0 ? v1::OP_CLASS_DENSE
                                                               : Classify(op.work, ridge);
    v1::OpClassCost& cost = costs[OpClassIndex(op.op_class)];
    cost.set_host_us(cost.host_us() + op.nanos / 1e3);
    cost.set_instructions(cost.instructions() + 1);
    cost.set_flops(cost.flops() + op.work.flops);
    cost.set_bytes(cost.bytes() + op.work.bytes);
  }
  v1::OpClassCost& overhead = costs[OpClassIndex(v1::OP_CLASS_OVERHEAD)];
  overhead.set_instructions(static_cast<uint32_t>(ops->size()));
  overhead.set_host_us(static_cast<double>(ops->size()));  // 1 us per operator
  out->clear_classes();
  for (const v1::OpClassCost& cost : costs) *out->add_classes() = cost;
}

double ClassHostUs(const v1::ModelHostProfile& profile, v1::OpClass op_class) {
  for (const v1::OpClassCost& cost : profile.classes()) {
    if (cost.op_class() == op_class) return cost.host_us();
  }
  return 0;
}

const v1::ModelHostProfile* FindHostProfile(const v1::HostProfile& profile, v1::Stack stack,
                                            const std::string& model, v1::Kernels kernels,
                                            uint64_t file_bytes, const std::string& file_digest) {
  for (const v1::ModelHostProfile& m : profile.models()) {
    if (m.stack() == stack && m.model() == model && m.kernels() == kernels &&
        m.file_bytes() == file_bytes && m.file_digest() == file_digest) {
      return &m;
    }
  }
  return nullptr;
}

namespace {

// Digests already computed, by file identity (device, inode, size,
// modification time): the emulator stamps a model's file on every lookup,
// and hashing it each time cost more than the session it served.
struct StampCache {
  using Key = std::tuple<uint64_t, uint64_t, int64_t, int64_t>;
  Mutex mu;
  std::map<Key, std::string> digests EF_GUARDED_BY(mu);
};

StampCache& Stamps() {
  static StampCache* cache = new StampCache;  // never destroyed: used by any thread at exit
  return *cache;
}

}  // namespace

absl::Status FileStamp(const std::string& path, uint64_t* bytes, std::string* digest) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return absl::NotFoundError("cannot read " + path);
  const StampCache::Key key{
      static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
      static_cast<int64_t>(st.st_size),
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  StampCache& cache = Stamps();
  {
    MutexLock lock(&cache.mu);
    auto it = cache.digests.find(key);
    if (it != cache.digests.end()) {
      *bytes = static_cast<uint64_t>(st.st_size);
      *digest = it->second;
      return absl::OkStatus();
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  uint64_t hash = 14695981039346656037ull;
  uint64_t size = 0;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      hash = (hash ^ static_cast<uint8_t>(buffer[i])) * 1099511628211ull;
    }
    size += static_cast<uint64_t>(n);
  }
  char hex[17];
  snprintf(hex, sizeof(hex), "%016" PRIx64, hash);
  *bytes = size;
  *digest = hex;
  if (size == static_cast<uint64_t>(st.st_size)) {  // not rewritten while read
    MutexLock lock(&cache.mu);
    cache.digests[key] = hex;
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::HostProfile> ReadHostProfile(const std::string& path) {
  v1::HostProfile profile;
  if (absl::Status s = ReadTextprotoFile(path, &profile); !s.ok()) return s;
  for (const v1::ModelHostProfile& m : profile.models()) {
    for (const v1::OpClassCost& cost : m.classes()) {
      if (OpClassIndex(cost.op_class()) < 0 || !(cost.host_us() >= 0)) {
        return absl::InvalidArgumentError(path + ": model " + m.model() +
                                          ": bad operator class cost");
      }
    }
  }
  return profile;
}

absl::Status WriteHostProfile(const std::string& path, const v1::HostProfile& profile) {
  return WriteTextprotoFile(
      path, profile,
      "# edgefleet.v1.HostProfile: per-operator-class host costs of each model on one core of\n"
      "# this host, measured by `edgefleet-server predict`, and the population prior of the\n"
      "# device factors written by `edgefleet-server fit-prior` (docs/service.md, "
      "docs/fidelity.md).\n");
}

}  // namespace service
}  // namespace edgefleet
