// ServiceMetrics: the server's Prometheus metrics (docs/service.md),
// registered once on a registry that an Exposer serves on its own port.
//
// Families (base units, `_total` counters):
//   edgefleet_model_load_seconds{arm,stack,device_class,model}   histogram
//   edgefleet_inference_seconds{arm,stack,device_class,model}    histogram
//   edgefleet_anr_total{arm,stack,device_class,model}            counter
//   edgefleet_anr_sessions_total{arm,stack,device_class,model}   counter, sessions with >= 1 ANR
//   edgefleet_frames_total{arm,stack,device_class,model,kind}    counter, kind=ok|slow|frozen
//   edgefleet_oom_kills_total{arm,stack,device_class,model}      counter
//   edgefleet_sessions_total{arm,stack,device_class,model,outcome} counter,
//   outcome=ok|oom_killed|error edgefleet_memory_peak_bytes{arm,stack,device_class,model}    gauge
//   (last session) edgefleet_inflight_requests                                   gauge
//   edgefleet_inflight_limit                                      gauge, slots + queue bound
//   edgefleet_build_info{version,stacks}                          gauge = 1
// Times are emulated device seconds. Histogram buckets span 100 us to 60 s
// and include 16 ms, 700 ms and 5 s. Label values come only from the
// configured arms, device classes and repository models, so label sets
// are bounded. The per-(arm, class) metric handles are created once and
// cached: the request path never builds a family or looks one up by name.
//
// Thread-safe.

#ifndef EDGEFLEET_SERVICE_METRICS_H_
#define EDGEFLEET_SERVICE_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "edgefleet/v1/session.pb.h"

namespace edgefleet {
namespace service {

// The latency bucket boundaries, in seconds.
const std::vector<double>& LatencyBuckets();

// Who a measurement belongs to.
struct MetricLabels {
  std::string arm;
  std::string stack;
  std::string device_class;
  std::string model;
};

class ServiceMetrics {
 public:
  // `stacks` lists the stacks this build runs ("edgefleet,pytorch-mobile");
  // `inflight_limit` is the admission limit (compute slots + queue bound).
  ServiceMetrics(const std::string& version, const std::string& stacks, int inflight_limit);
  ~ServiceMetrics();
  ServiceMetrics(const ServiceMetrics&) = delete;
  ServiceMetrics& operator=(const ServiceMetrics&) = delete;

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  // Creates the series of one label set at zero. The server does this for
  // every configured arm x device class at start: a counter first exported
  // at its first value would hide that increase from rate() and increase().
  void Initialize(const MetricLabels& labels) { HandlesFor(labels); }
  // Everything one finished session contributes.
  void RecordSession(const MetricLabels& labels, const v1::SessionResult& result);
  // One ModelInfer inference (device seconds).
  void RecordInference(const MetricLabels& labels, double seconds);
  void SetInflight(int requests);

 private:
  struct Handles;
  Handles& HandlesFor(const MetricLabels& labels) EF_EXCLUDES(mu_);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Histogram>& load_seconds_;
  prometheus::Family<prometheus::Histogram>& inference_seconds_;
  prometheus::Family<prometheus::Counter>& anr_total_;
  prometheus::Family<prometheus::Counter>& anr_sessions_total_;
  prometheus::Family<prometheus::Counter>& frames_total_;
  prometheus::Family<prometheus::Counter>& oom_kills_total_;
  prometheus::Family<prometheus::Counter>& sessions_total_;
  prometheus::Family<prometheus::Gauge>& memory_peak_bytes_;
  prometheus::Gauge& inflight_;

  Mutex mu_;
  std::map<std::string, std::unique_ptr<Handles>> handles_ EF_GUARDED_BY(mu_);
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_METRICS_H_
