#include "service/predict_main.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "service/command_line.h"
#include "service/device_class_registry.h"
#include "service/device_time_fit.h"
#include "service/device_time_predictor.h"
#include "service/host_profiler.h"
#include "service/model_repository.h"
#include "service/published_latencies.h"

namespace edgefleet {
namespace service {
namespace {

constexpr const char* kPredictUsage =
    "usage: edgefleet-server predict --model_repository=DIR [flags]\n"
    "  the device-time model's steady-state latency of each model on one device class\n"
    "  --model_repository=DIR      models are DIR/<name>/model.pte (required)\n"
    "  --device_classes=DIR        device class textprotos (deploy/device_classes)\n"
    "  --device_class=NAME         the class to predict for (mid_android)\n"
    "  --calibrate=MODEL@THREADS=MS  a published latency to fit to, repeatable (the class's\n"
    "                              calibration_points)\n"
    "  --model=NAME                a model to predict, repeatable (every repository model)\n"
    "  --threads=N                 device threads, 1..1024 (1)\n"
    "  --stack=NAME                edgefleet or pytorch-mobile (edgefleet)\n"
    "  --host_profile=FILE         host profile to read and extend (none: measure in memory)\n"
    "  --host_thread_scaling=on|off  on: threads also scale as our runtime does on this host\n"
    "                              (its measured two-thread speedup); off: as the device\n"
    "                              model alone, i.e. as the published runtime (on)\n"
    "  --measure_thread_scaling    first measure our runtime's 1- and 2-thread latency of every\n"
    "                              predicted model whose profile entry lacks it, and keep it\n"
    "                              (written back with --host_profile)\n"
    "  --json                      one JSON object on stdout (off: a table)\n"
    "  -h, --help                  this text\n"
    "Flags are --name=value or --name value. Exit 0, 1 (a measurement failed), 2 (bad flags).\n";

constexpr const char* kFitPriorUsage =
    "usage: edgefleet-server fit-prior --model_repository=DIR --host_profile=FILE --published=CSV"
    " [flags]\n"
    "  fits the device-time model's population prior to published latencies\n"
    "  --model_repository=DIR      models are DIR/<name>/model.pte (required)\n"
    "  --host_profile=FILE         host profile to read (required)\n"
    "  --published=CSV             published latencies (required), repeatable: every file's\n"
    "                              devices (a device name in two files is refused)\n"
    "  --exclude_device=NAME       leave a device out of the fit, repeatable (none)\n"
    "  --exclude_model=NAME        leave a model out of the fit, repeatable (none)\n"
    "  --out=FILE                  where to write the host profile (--host_profile)\n"
    "  -h, --help                  this text\n"
    "Flags are --name=value or --name value. Exit 0, 1 (a fit failed), 2 (bad flags).\n";

// The command line, or the process exit code: 0 after printing the usage
// for --help, 2 after a parse error.
absl::StatusOr<CommandLine> ParseOrExit(const char* command, const char* usage,
                                        const std::vector<std::string>& args,
                                        const std::set<std::string>& valued,
                                        const std::set<std::string>& switches, int* exit_code) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(args, valued, switches);
  if (!line.ok()) {
    fprintf(stderr, "edgefleet-server %s: %s\n%s", command,
            std::string(line.status().message()).c_str(), usage);
    *exit_code = 2;
  } else if (line->help) {
    fputs(usage, stdout);
    *exit_code = 0;
  }
  return line;
}

// "mobilenet_v2@1=9.84" -> point.
absl::StatusOr<FitPoint> ParsePoint(const std::string& text) {
  const size_t at = text.find('@');
  const size_t eq = text.find('=', at == std::string::npos ? 0 : at);
  const auto bad = [&] {
    return absl::InvalidArgumentError("--calibrate=" + text +
                                      ": expected MODEL@THREADS=MS, e.g. mobilenet_v2@1=9.84");
  };
  if (at == std::string::npos || eq == std::string::npos || at == 0) return bad();
  FitPoint point;
  point.model = text.substr(0, at);
  const std::string threads = text.substr(at + 1, eq - at - 1);
  const std::string ms = text.substr(eq + 1);
  char* end = nullptr;
  const long t = std::strtol(threads.c_str(), &end, 10);
  if (threads.empty() || *end != '\0' || t < 1 || t > 1024) return bad();
  point.threads = static_cast<int>(t);
  point.ms = std::strtod(ms.c_str(), &end);
  if (ms.empty() || *end != '\0' || !(point.ms > 0) || !std::isfinite(point.ms)) return bad();
  return point;
}

// The repository's models and the edgefleet programs `profile` has
// measured (the published reference models need not be exported to be
// calibrated on or predicted: their host costs are in the profile).
std::set<std::string> KnownModels(const std::vector<std::string>& repository,
                                  const v1::HostProfile& profile) {
  std::set<std::string> known(repository.begin(), repository.end());
  for (const v1::ModelHostProfile& m : profile.models()) {
    if (m.stack() == v1::STACK_EDGEFLEET && m.kernels() == v1::KERNELS_DEFAULT) {
      known.insert(m.model());
    }
  }
  return known;
}

int Fail(int code, const absl::Status& status) {
  fprintf(stderr, "edgefleet-server: %s\n", std::string(status.message()).c_str());
  return code;
}

}  // namespace

int PredictMain(const std::vector<std::string>& args) {
  int exit_code = -1;
  const absl::StatusOr<CommandLine> flags =
      ParseOrExit("predict", kPredictUsage, args,
                  {"model_repository", "device_classes", "device_class", "calibrate", "model",
                   "threads", "stack", "host_profile", "host_thread_scaling"},
                  {"json", "measure_thread_scaling"}, &exit_code);
  if (exit_code >= 0) return exit_code;
  const std::string root = flags->Get("model_repository");
  if (root.empty()) return Fail(2, absl::InvalidArgumentError("--model_repository is required"));
  const std::string stack_name = flags->Get("stack", "edgefleet");
  v1::Stack stack = v1::STACK_EDGEFLEET;
  if (stack_name == "pytorch-mobile") {
    stack = v1::STACK_PYTORCH_MOBILE;
  } else if (stack_name != "edgefleet") {
    return Fail(2, absl::InvalidArgumentError("--stack must be edgefleet or pytorch-mobile"));
  }
  char* end = nullptr;
  const std::string threads_text = flags->Get("threads", "1");
  const long threads = std::strtol(threads_text.c_str(), &end, 10);
  if (*end != '\0' || threads < 1 || threads > 1024) {
    return Fail(2, absl::InvalidArgumentError("--threads must be an integer in [1, 1024]"));
  }
  absl::StatusOr<std::unique_ptr<ModelRepository>> repository = ModelRepository::Open(root);
  if (!repository.ok()) return Fail(2, repository.status());
  const std::string classes_dir = flags->Get("device_classes", "deploy/device_classes");
  absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> classes =
      DeviceClassRegistry::Create(classes_dir);
  if (!classes.ok()) return Fail(2, classes.status());
  const std::string class_name = flags->Get("device_class", "mid_android");
  const v1::DeviceClass* device = (*classes)->Find(class_name);
  if (device == nullptr) {
    return Fail(2, absl::InvalidArgumentError("no device class named " + class_name));
  }

  // Without --host_profile, the one the server reads (the committed
  // reference host's costs and population prior for deploy/device_classes),
  // read only: what it lacks is measured for this call and not kept.
  const std::string profile_path = flags->Get("host_profile");
  absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> predictor =
      profile_path.empty() ? DeviceTimePredictor::OpenReadOnly(repository->get(),
                                                               DefaultHostProfilePath(classes_dir))
                           : DeviceTimePredictor::Open(repository->get(), profile_path);
  if (!predictor.ok()) return Fail(2, predictor.status());
  const std::vector<std::string> available = (*repository)->ListModels();
  // Models the edgefleet stack can be predicted for: the repository's, and
  // the published reference models the host profile has measured.
  const std::set<std::string> known = KnownModels(available, (*predictor)->profile());
  const std::set<std::string>& predictable =
      stack == v1::STACK_EDGEFLEET ? known
                                   : std::set<std::string>(available.begin(), available.end());
  // Default: every model of the repository; a repository without models (a
  // fresh clone before `make models`) predicts what the host profile carries
  // (the committed one: the published reference models).
  std::vector<std::string> models = flags->All("model");
  if (models.empty()) {
    models = available.empty() ? std::vector<std::string>(predictable.begin(), predictable.end())
                               : available;
  }
  if (models.empty()) {
    return Fail(2, absl::InvalidArgumentError(
                       "nothing to predict: the repository has no models of this stack and the "
                       "host profile none"));
  }
  for (const std::string& m : models) {
    if (predictable.count(m) == 0) {
      return Fail(2, absl::InvalidArgumentError("--model=" + m + ": not in the repository"));
    }
  }
  std::vector<FitPoint> points;
  for (const std::string& text : flags->All("calibrate")) {
    absl::StatusOr<FitPoint> point = ParsePoint(text);
    if (!point.ok()) return Fail(2, point.status());
    if (known.count(point->model) == 0) {
      return Fail(2,
                  absl::InvalidArgumentError("calibration point " + text.substr(0, text.find('=')) +
                                             ": model not in the repository"
                                             " nor in the host profile"));
    }
    points.push_back(*point);
  }
  if (points.empty()) {
    absl::StatusOr<std::vector<FitPoint>> own = DeviceTimePredictor::ClassPoints(*device);
    if (!own.ok()) return Fail(2, own.status());
    points = *std::move(own);
  }

  const std::string scaling = flags->Get("host_thread_scaling", "on");
  if (scaling != "on" && scaling != "off") {
    return Fail(2, absl::InvalidArgumentError("--host_thread_scaling must be on or off"));
  }
  if (flags->switches.count("measure_thread_scaling") > 0 && stack == v1::STACK_EDGEFLEET) {
    if (absl::Status s =
            (*predictor)
                ->MeasureMissingThreadScaling(std::set<std::string>(models.begin(), models.end()));
        !s.ok()) {
      return Fail(1, s);
    }
  }
  std::vector<ModelOnDevice> predicted;
  for (const std::string& m : models) {
    absl::StatusOr<ModelOnDevice> one = (*predictor)->For(*device, m, points, stack);
    if (!one.ok()) return Fail(1, one.status());
    if (scaling == "off") one->runtime_serial = 0;
    predicted.push_back(*std::move(one));
  }
  if (absl::Status s = (*predictor)->SaveIfChanged(); !s.ok()) return Fail(1, s);
  const DeviceFactors& factors = predicted.front().factors;
  const v1::DeviceModelPrior prior = (*predictor)->profile().prior();

  const bool json = flags->switches.count("json") > 0;
  const int t = static_cast<int>(threads);
  if (json) {
    printf("{\"device_class\": \"%s\", \"stack\": \"%s\", \"threads\": %d, \"predictions\": [",
           class_name.c_str(), stack_name.c_str(), t);
    for (size_t i = 0; i < models.size(); ++i) {
      printf("%s{\"model\": \"%s\", \"device_ms\": %.9g, \"runtime_serial\": %.6f}", i ? ", " : "",
             models[i].c_str(), predicted[i].PredictMs(t), predicted[i].runtime_serial);
    }
    printf("], \"factors\": {");
    for (int c = 0; c < kNumOpClasses; ++c) {
      printf("%s\"%s\": %.6g", c ? ", " : "", OpClassName(kOpClasses[c]),
             std::exp(factors.log_factor[c]));
    }
    const std::optional<NeighbourOffsets>& neighbours = predicted.front().neighbours;
    std::string offsets = "population";
    if (neighbours.has_value()) {
      char text[160];
      snprintf(text, sizeof(text),
               "neighbours, bandwidth %g, speed weight %g, population share %.2f, deviation"
               " scale %g",
               neighbours->bandwidth, neighbours->speed_weight, neighbours->population_share,
               neighbours->deviation_scale);
      offsets = neighbours->bandwidth > 0 ? text : "neighbours, equal weights";
    }
    printf(
        "}, \"parallel_fraction\": %.6f, \"calibration_points\": %d,"
        " \"fit_rms_log_error\": %.6f, \"prior\": \"%s\", \"model_offsets\": \"%s\"}\n",
        factors.parallel_fraction, factors.points, factors.rms_log_error,
        prior.ratios().empty() ? "none" : prior.source().c_str(), offsets.c_str());
  } else {
    printf("device class %s, %d thread(s), fitted to %d point(s) (rms log error %.3f)\n",
           class_name.c_str(), t, factors.points, factors.rms_log_error);
    for (size_t i = 0; i < models.size(); ++i) {
      printf("  %-24s %10.2f ms\n", models[i].c_str(), predicted[i].PredictMs(t));
    }
  }
  return 0;
}

int FitPriorMain(const std::vector<std::string>& args) {
  int exit_code = -1;
  const absl::StatusOr<CommandLine> flags = ParseOrExit(
      "fit-prior", kFitPriorUsage, args,
      {"model_repository", "host_profile", "published", "exclude_device", "exclude_model", "out"},
      {}, &exit_code);
  if (exit_code >= 0) return exit_code;
  for (const char* required : {"model_repository", "host_profile", "published"}) {
    if (flags->Get(required).empty()) {
      return Fail(2, absl::InvalidArgumentError(std::string("--") + required + " is required"));
    }
  }
  absl::StatusOr<std::unique_ptr<ModelRepository>> repository =
      ModelRepository::Open(flags->Get("model_repository"));
  if (!repository.ok()) return Fail(2, repository.status());
  std::vector<PublishedDevice> published;
  std::set<std::string> names;
  std::string source;
  for (const std::string& path : flags->All("published")) {
    absl::StatusOr<std::vector<PublishedDevice>> file = ReadPublishedLatencies(path);
    if (!file.ok()) return Fail(2, file.status());
    for (PublishedDevice& d : *file) {
      if (!names.insert(d.name).second) {
        return Fail(2, absl::InvalidArgumentError("device \"" + d.name + "\" of " + path +
                                                  " is in an earlier --published file too"));
      }
      published.push_back(std::move(d));
    }
    source += (source.empty() ? "" : " + ") + path.substr(path.rfind('/') + 1);
  }
  const std::vector<std::string> excluded = flags->All("exclude_device");
  const std::vector<std::string> excluded_models = flags->All("exclude_model");
  const std::string profile_path = flags->Get("host_profile");
  absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> predictor =
      DeviceTimePredictor::Open(repository->get(), profile_path);
  if (!predictor.ok()) return Fail(2, predictor.status());
  const std::set<std::string> available_set =
      KnownModels((*repository)->ListModels(), (*predictor)->profile());
  std::vector<PublishedDevice> devices;
  std::set<std::string> needed;
  for (const PublishedDevice& d : published) {
    if (std::find(excluded.begin(), excluded.end(), d.name) != excluded.end()) continue;
    PublishedDevice kept{d.name, {}};
    for (const FitPoint& p : d.points) {
      if (available_set.count(p.model) == 0) continue;  // models neither exported nor profiled
      if (std::find(excluded_models.begin(), excluded_models.end(), p.model) !=
          excluded_models.end()) {
        continue;
      }
      kept.points.push_back(p);
      needed.insert(p.model);
    }
    devices.push_back(std::move(kept));
  }
  absl::StatusOr<HostCosts> costs = (*predictor)->Costs(needed);
  if (!costs.ok()) return Fail(1, costs.status());
  absl::StatusOr<v1::DeviceModelPrior> prior = FitPrior(devices, *costs);
  if (!prior.ok()) return Fail(1, prior.status());
  prior->set_source(source);
  for (const std::string& m : excluded_models) prior->add_excluded_models(m);
  v1::HostProfile profile = (*predictor)->profile();
  *profile.mutable_prior() = *prior;
  const std::string out = flags->Get("out", profile_path);
  if (absl::Status s = WriteHostProfile(out, profile); !s.ok()) return Fail(1, s);
  printf("prior fitted on %d devices, %u single-thread points, rms log error %.3f; wrote %s\n",
         prior->fitted_on_size(), prior->points(), prior->rms_log_error(), out.c_str());
  for (const auto& ratio : prior->ratios()) {
    printf("  %-14s x%.4g\n", OpClassName(ratio.op_class()), std::exp(ratio.log_ratio()));
  }
  printf("  sigma %.3f, parallel fraction %.3f\n", prior->sigma(), prior->parallel_fraction());
  return 0;
}

}  // namespace service
}  // namespace edgefleet
