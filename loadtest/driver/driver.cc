#include "loadtest/driver/driver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/mutex.h"
#include "edgefleet/v1/emulator.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "loadtest/driver/progress.h"
#include "loadtest/stats/random.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

using Clock = std::chrono::steady_clock;

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

bool Retryable(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED || code == grpc::StatusCode::ABORTED;
}

// A short cause for a stack error: the message up to the first ':' (e.g.
// "OperatorMissing"), at most 64 characters.
std::string ShortCause(const std::string& message) {
  std::string cause = message.substr(0, message.find(':'));
  if (cause.size() > 64) cause.resize(64);
  return cause.empty() ? "error" : cause;
}

// Seeded Poisson start offsets (seconds) for OPEN_LOOP; zeros otherwise.
std::vector<double> StartOffsets(const FleetPlan& plan) {
  std::vector<double> offsets(plan.sessions.size(), 0.0);
  if (plan.spec.arrival().kind() != v1::ArrivalProcess::OPEN_LOOP) return offsets;
  Xoshiro256 rng(MixSeed(plan.spec.seed(), 0x0A77'1BA1ULL));
  double t = 0;
  for (double& offset : offsets) {
    t += -std::log1p(-rng.NextDouble()) / plan.spec.arrival().rate_per_second();
    offset = t;
  }
  return offsets;
}

}  // namespace

SessionRecord ToRecord(const PlannedSession& planned, const v1::SessionResult& result,
                       uint32_t discard_inferences, uint32_t retries) {
  SessionRecord r;
  r.device_id = planned.device_id;
  r.session_index = planned.session_index;
  r.arm = planned.arm;
  r.device_class = planned.device_class;
  r.retries = retries;
  switch (result.outcome()) {
    case v1::SESSION_OUTCOME_OK:
      r.outcome = Outcome::kOk;
      break;
    case v1::SESSION_OUTCOME_OOM_KILLED:
      r.outcome = Outcome::kOomKilled;
      break;
    case v1::SESSION_OUTCOME_CANCELLED:
      // Stopped by the server (its --max_session_s or shutdown): the
      // harness's failure, not the stack's.
      r.outcome = Outcome::kHarnessError;
      r.error_cause = "CANCELLED";
      break;
    default:
      r.outcome = Outcome::kStackError;
      r.error_cause = ShortCause(result.error_message());
      break;
  }
  r.load_read_us = result.load().read_us();
  r.load_parse_us = result.load().parse_us();
  r.load_init_us = result.load().init_us();
  r.peak_memory_bytes = static_cast<int64_t>(result.peak_memory_bytes());
  r.anr_count = result.anr_count();
  r.slow_frames = result.slow_frames();
  r.frozen_frames = result.frozen_frames();
  r.total_frames = result.total_frames();
  r.device_time_factor = result.device_time_factor();
  if (result.latency_us_size() > 0) {
    r.first_inference_us = result.latency_us(0);
    for (int i = 1 + static_cast<int>(discard_inferences); i < result.latency_us_size(); ++i) {
      r.latencies_us.push_back(result.latency_us(i));
    }
  }
  return r;
}

absl::StatusOr<ResultSet> RunFleet(const FleetPlan& plan, const DriverOptions& options,
                                   DriverStats* stats) {
  if (options.addresses.empty()) return absl::InvalidArgumentError("no server address");
  std::vector<std::unique_ptr<v1::Emulator::Stub>> stubs;
  for (const std::string& address : options.addresses) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    // A name resolving to several servers (a Kubernetes headless Service)
    // spreads calls over all of them; one address behaves as before.
    args.SetLoadBalancingPolicyName("round_robin");
    if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
    stubs.push_back(v1::Emulator::NewStub(grpc::CreateCustomChannel(
        address,
        options.credentials != nullptr ? options.credentials : grpc::InsecureChannelCredentials(),
        args)));
  }
  const size_t n = plan.sessions.size();
  const std::vector<double> offsets = StartOffsets(plan);
  std::vector<SessionRecord> records(n);
  // The workers' counts; *stats gets them after the workers are done.
  struct Tally {
    Mutex mu;
    DriverStats counts EF_GUARDED_BY(mu);
  } tally;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  ProgressBar progress(options.progress, n);
  const Clock::time_point start = Clock::now();
  const v1::FleetSpec& spec = plan.spec;

  auto worker = [&]() {
    for (size_t i = next++; i < n; i = next++) {
      const PlannedSession& p = plan.sessions[i];
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(offsets[i])));
      v1::RunSessionRequest request;
      *request.mutable_spec() = p.spec;
      v1::SessionResult result;
      grpc::Status status;
      uint32_t attempt = 0;
      std::vector<std::string> failures;
      for (;; ++attempt) {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::milliseconds(spec.call_timeout_ms()));
        const size_t target = (p.device_id + attempt) % stubs.size();
        status = stubs[target]->RunSession(&context, request, &result);
        if (status.ok()) break;
        failures.push_back(CodeName(status.error_code()));
        if (!Retryable(status.error_code()) || attempt >= spec.max_retries()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50 << std::min(attempt, 5u)));
      }
      if (status.ok()) {
        records[i] = ToRecord(p, result, spec.warmup().discard_inferences(), attempt);
      } else {
        SessionRecord& r = records[i];
        r.device_id = p.device_id;
        r.session_index = p.session_index;
        r.arm = p.arm;
        r.device_class = p.device_class;
        r.outcome = Outcome::kHarnessError;
        r.error_cause = CodeName(status.error_code());
        r.retries = attempt;
      }
      {
        MutexLock lock(&tally.mu);
        tally.counts.calls += attempt + 1;
        tally.counts.retries += attempt;
        if (!status.ok() || records[i].outcome == Outcome::kHarnessError) {
          ++tally.counts.harness_errors;
        }
        if (p.spec.execution_mode() == v1::EXECUTION_MODE_SAMPLED) ++tally.counts.sampled_sessions;
        for (const std::string& code : failures) ++tally.counts.failed_calls_by_code[code];
      }
      progress.Update(++done);
    }
  };
  const size_t threads = std::min<size_t>(spec.arrival().concurrency(), std::max<size_t>(n, 1));
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  progress.Finish();
  {
    MutexLock lock(&tally.mu);
    *stats = tally.counts;
  }
  stats->sessions = n;
  stats->wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // The pre-period's covariate: per device, the median of the steady
  // latencies its pre-period sessions measured (those that measured any).
  std::map<uint64_t, std::vector<int64_t>> pre_latencies;
  for (size_t i = 0; i < n; ++i) {
    if (!plan.sessions[i].pre_period) continue;
    ++stats->pre_period_sessions;
    std::vector<int64_t>& all = pre_latencies[plan.sessions[i].device_id];
    all.insert(all.end(), records[i].latencies_us.begin(), records[i].latencies_us.end());
  }
  stats->sessions -= stats->pre_period_sessions;
  std::map<uint64_t, int64_t> pre_median;
  for (auto& [device, all] : pre_latencies) {
    if (all.empty()) continue;
    std::nth_element(all.begin(), all.begin() + (all.size() - 1) / 2, all.end());
    pre_median[device] = all[(all.size() - 1) / 2];
  }
  ResultSet results(plan.info, plan.shard);
  results.Reserve(n - stats->pre_period_sessions);
  for (size_t i = 0; i < n; ++i) {
    if (plan.sessions[i].pre_period) continue;
    SessionRecord& r = records[i];
    const auto it = pre_median.find(r.device_id);
    if (it != pre_median.end()) r.pre_period_us = it->second;
    results.Add(std::move(r));
  }
  if (absl::Status s = results.Canonicalize(); !s.ok()) return s;
  return results;
}

std::string DescribeStats(const DriverStats& s) {
  std::string text = absl::StrCat(
      s.sessions, " sessions",
      s.pre_period_sessions > 0 ? absl::StrCat(" + ", s.pre_period_sessions, " pre-period") : "",
      " (", s.sampled_sessions, " sampled, ",
      s.sessions + s.pre_period_sessions - s.sampled_sessions, " real) in ",
      static_cast<int64_t>(std::lround(s.wall_seconds * 10)) / 10.0, " s; calls ", s.calls,
      " (retries ", s.retries, "), harness errors ", s.harness_errors, "; failed calls by code:");
  if (s.failed_calls_by_code.empty()) absl::StrAppend(&text, " none");
  for (const auto& [code, count] : s.failed_calls_by_code) {
    absl::StrAppend(&text, " ", code, "=", count);
  }
  return text;
}

std::string DriverStatsToJson(const DriverStats& s) {
  nlohmann::json j = {{"sessions", s.sessions},
                      {"pre_period_sessions", s.pre_period_sessions},
                      {"sampled_sessions", s.sampled_sessions},
                      {"calls", s.calls},
                      {"retries", s.retries},
                      {"harness_errors", s.harness_errors},
                      {"failed_calls_by_code", s.failed_calls_by_code},
                      {"wall_seconds", s.wall_seconds}};
  return j.dump(1) + "\n";
}

}  // namespace loadtest
}  // namespace edgefleet
