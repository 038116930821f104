#include "service/metrics.h"

namespace edgefleet {
namespace service {

struct ServiceMetrics::Handles {
  prometheus::Histogram* load;
  prometheus::Histogram* inference;
  prometheus::Counter* anr;
  prometheus::Counter* anr_sessions;
  prometheus::Counter* frames_ok;
  prometheus::Counter* frames_slow;
  prometheus::Counter* frames_frozen;
  prometheus::Counter* oom_kills;
  prometheus::Counter* sessions_ok;
  prometheus::Counter* sessions_oom;
  prometheus::Counter* sessions_error;
  prometheus::Counter* sessions_cancelled;
  prometheus::Gauge* memory_peak;
};

const std::vector<double>& LatencyBuckets() {
  static const auto* buckets = new std::vector<double>{
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.016, 0.025, 0.05,
      0.1,    0.25,    0.5,    0.7,   1.0,    2.5,   5.0,  10.0,  30.0,  60.0};
  return *buckets;
}

ServiceMetrics::ServiceMetrics(const std::string& version, const std::string& stacks,
                               int inflight_limit)
    : registry_(std::make_shared<prometheus::Registry>()),
      load_seconds_(prometheus::BuildHistogram()
                        .Name("edgefleet_model_load_seconds")
                        .Help("Emulated model load time (read + parse + init), device seconds")
                        .Register(*registry_)),
      inference_seconds_(prometheus::BuildHistogram()
                             .Name("edgefleet_inference_seconds")
                             .Help("Emulated inference latency, device seconds")
                             .Register(*registry_)),
      anr_total_(prometheus::BuildCounter()
                     .Name("edgefleet_anr_total")
                     .Help("Input events not dispatched within the device class's ANR timeout")
                     .Register(*registry_)),
      anr_sessions_total_(prometheus::BuildCounter()
                              .Name("edgefleet_anr_sessions_total")
                              .Help("Sessions with at least one ANR (the guardrail's numerator)")
                              .Register(*registry_)),
      frames_total_(prometheus::BuildCounter()
                        .Name("edgefleet_frames_total")
                        .Help("Main-thread frames by kind: ok, slow (16-700 ms), frozen (>700 ms)")
                        .Register(*registry_)),
      oom_kills_total_(prometheus::BuildCounter()
                           .Name("edgefleet_oom_kills_total")
                           .Help("Sessions killed for exceeding the class's app memory budget")
                           .Register(*registry_)),
      sessions_total_(prometheus::BuildCounter()
                          .Name("edgefleet_sessions_total")
                          .Help("Finished sessions by outcome: ok, oom_killed, error, cancelled")
                          .Register(*registry_)),
      memory_peak_bytes_(prometheus::BuildGauge()
                             .Name("edgefleet_memory_peak_bytes")
                             .Help("Peak memory the stack allocated in the last session, bytes")
                             .Register(*registry_)),
      inflight_(prometheus::BuildGauge()
                    .Name("edgefleet_inflight_requests")
                    .Help("Requests admitted and not finished")
                    .Register(*registry_)
                    .Add({})) {
  prometheus::BuildGauge()
      .Name("edgefleet_build_info")
      .Help("Build information; value 1")
      .Register(*registry_)
      .Add({{"version", version}, {"stacks", stacks}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("edgefleet_inflight_limit")
      .Help("Admission limit: compute slots + queue bound; more requests get RESOURCE_EXHAUSTED")
      .Register(*registry_)
      .Add({})
      .Set(inflight_limit);
}

ServiceMetrics::Handles& ServiceMetrics::HandlesFor(const MetricLabels& l) {
  const std::string key = l.arm + '\n' + l.stack + '\n' + l.device_class + '\n' + l.model;
  MutexLock lock(&mu_);
  std::unique_ptr<Handles>& handles = handles_[key];
  if (handles == nullptr) {
    const prometheus::Labels base = {
        {"arm", l.arm}, {"stack", l.stack}, {"device_class", l.device_class}, {"model", l.model}};
    auto with = [&](const char* name, const char* value) {
      prometheus::Labels labels = base;
      labels[name] = value;
      return labels;
    };
    handles = std::make_unique<Handles>();
    handles->load = &load_seconds_.Add(base, LatencyBuckets());
    handles->inference = &inference_seconds_.Add(base, LatencyBuckets());
    handles->anr = &anr_total_.Add(base);
    handles->anr_sessions = &anr_sessions_total_.Add(base);
    handles->frames_ok = &frames_total_.Add(with("kind", "ok"));
    handles->frames_slow = &frames_total_.Add(with("kind", "slow"));
    handles->frames_frozen = &frames_total_.Add(with("kind", "frozen"));
    handles->oom_kills = &oom_kills_total_.Add(base);
    handles->sessions_ok = &sessions_total_.Add(with("outcome", "ok"));
    handles->sessions_oom = &sessions_total_.Add(with("outcome", "oom_killed"));
    handles->sessions_error = &sessions_total_.Add(with("outcome", "error"));
    handles->sessions_cancelled = &sessions_total_.Add(with("outcome", "cancelled"));
    handles->memory_peak = &memory_peak_bytes_.Add(base);
  }
  return *handles;
}

void ServiceMetrics::RecordSession(const MetricLabels& labels, const v1::SessionResult& result) {
  Handles& h = HandlesFor(labels);
  switch (result.outcome()) {
    case v1::SESSION_OUTCOME_OK:
      h.sessions_ok->Increment();
      break;
    case v1::SESSION_OUTCOME_OOM_KILLED:
      h.sessions_oom->Increment();
      h.oom_kills->Increment();
      break;
    case v1::SESSION_OUTCOME_CANCELLED:
      h.sessions_cancelled->Increment();
      return;  // a cancelled session has no figures
    default:
      h.sessions_error->Increment();
      return;  // a failed session has no figures
  }
  h.load->Observe(static_cast<double>(result.load().total_us()) * 1e-6);
  for (int64_t us : result.latency_us()) h.inference->Observe(static_cast<double>(us) * 1e-6);
  h.anr->Increment(result.anr_count());
  if (result.anr_count() > 0) h.anr_sessions->Increment();
  const uint32_t bad = result.slow_frames() + result.frozen_frames();
  h.frames_ok->Increment(result.total_frames() >= bad ? result.total_frames() - bad : 0);
  h.frames_slow->Increment(result.slow_frames());
  h.frames_frozen->Increment(result.frozen_frames());
  h.memory_peak->Set(static_cast<double>(result.peak_memory_bytes()));
}

void ServiceMetrics::RecordInference(const MetricLabels& labels, double seconds) {
  HandlesFor(labels).inference->Observe(seconds);
}

ServiceMetrics::~ServiceMetrics() = default;

void ServiceMetrics::SetInflight(int requests) { inflight_.Set(requests); }

}  // namespace service
}  // namespace edgefleet
