#include "service/experiment_runner.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <thread>

#include "common/mutex.h"
#include "service/seeded_random.h"

namespace edgefleet {
namespace service {

absl::StatusOr<ExperimentSessions> ExpandExperiment(const v1::RunExperimentRequest& request) {
  const bool has_plan = request.has_plan();
  if (has_plan == !request.sessions().empty()) {
    return absl::InvalidArgumentError("give either sessions or a plan, not both or neither");
  }
  if (!has_plan) {
    if (static_cast<size_t>(request.sessions_size()) > kMaxSessionsPerExperiment) {
      return absl::InvalidArgumentError("too many sessions in one experiment");
    }
    return ExperimentSessions(&request, static_cast<size_t>(request.sessions_size()));
  }
  const v1::ExperimentPlan& plan = request.plan();
  // Part of every session's id.
  if (request.experiment_id().size() > kMaxExperimentIdLength) {
    return absl::InvalidArgumentError("experiment_id is longer than " +
                                      std::to_string(kMaxExperimentIdLength) + " characters");
  }
  if (plan.arms().empty() || plan.device_classes().empty() || plan.sessions_per_class() == 0) {
    return absl::InvalidArgumentError("plan needs arms, device_classes and sessions_per_class");
  }
  const uint64_t total = static_cast<uint64_t>(plan.arms_size()) * plan.device_classes_size() *
                         plan.sessions_per_class();
  if (total > kMaxSessionsPerExperiment) {
    return absl::InvalidArgumentError("plan expands to " + std::to_string(total) +
                                      " sessions, over " +
                                      std::to_string(kMaxSessionsPerExperiment));
  }
  return ExperimentSessions(&request, static_cast<size_t>(total));
}

v1::SessionSpec ExperimentSessions::At(size_t i) const {
  if (!request_->has_plan()) return request_->sessions(static_cast<int>(i));
  // For each class, for each of its sessions, every arm (paired).
  const v1::ExperimentPlan& plan = request_->plan();
  const size_t arms = static_cast<size_t>(plan.arms_size());
  const size_t per_class = arms * plan.sessions_per_class();
  const std::string& device_class = plan.device_classes(static_cast<int>(i / per_class));
  const uint32_t session = static_cast<uint32_t>(i % per_class / arms);
  const std::string& arm = plan.arms(static_cast<int>(i % arms));
  v1::SessionSpec spec;
  spec.set_arm(arm);
  spec.set_device_class(device_class);
  spec.set_seed(Mix64(plan.base_seed() ^ HashName(device_class)) + session);
  spec.set_inferences(plan.inferences());
  spec.set_inter_arrival_ms(plan.inter_arrival_ms());
  spec.set_execution_mode(plan.execution_mode());
  spec.set_session_id(request_->experiment_id() + "/" + device_class + "/" +
                      std::to_string(session) + "/" + arm);
  return spec;
}

absl::Status ExperimentRunner::Run(const ExperimentSessions& specs, int parallelism,
                                   const std::function<bool(const v1::SessionResult&)>& on_result,
                                   const std::function<bool()>& cancelled) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i % 4096 == 0 && cancelled && cancelled()) {
      return absl::CancelledError("experiment cancelled by the client");
    }
    if (absl::Status s = sessions_->Validate(specs.At(i)); !s.ok()) {
      return absl::Status(s.code(),
                          "session " + std::to_string(i) + ": " + std::string(s.message()));
    }
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  // Results in completion order, from the workers to this thread.
  struct Finished {
    Mutex mu;
    CondVar cv;  // a result arrived
    std::deque<absl::StatusOr<v1::SessionResult>> results EF_GUARDED_BY(mu);
  } finished;
  const int workers = std::max(1, std::min<int>(parallelism, static_cast<int>(specs.size())));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < specs.size() && !stop.load(); i = next++) {
        absl::StatusOr<v1::SessionResult> result =
            sessions_->Run(specs.At(i), static_cast<uint32_t>(i),
                           [&] { return stop.load() || (cancelled && cancelled()); });
        MutexLock lock(&finished.mu);
        finished.results.push_back(std::move(result));
        finished.cv.NotifyOne();
      }
    });
  }
  absl::Status status;
  size_t received = 0;
  const size_t expected = specs.size();
  while (received < expected) {
    if (cancelled && cancelled()) {
      stop = true;
      status = absl::CancelledError("experiment cancelled by the client");
      break;
    }
    absl::StatusOr<v1::SessionResult> result;
    {
      MutexLock lock(&finished.mu);
      if (finished.results.empty()) {
        finished.cv.WaitFor(&finished.mu, std::chrono::milliseconds(20));
      }
      if (finished.results.empty()) continue;
      result = std::move(finished.results.front());
      finished.results.pop_front();
    }
    ++received;
    if (!result.ok()) {
      stop = true;
      status = result.status();
      break;
    }
    if (!on_result(*result)) {
      stop = true;
      status = absl::CancelledError("the result stream closed");
      break;
    }
  }
  for (std::thread& t : threads) t.join();
  return status;
}

}  // namespace service
}  // namespace edgefleet
