// The fleet driver: runs a FleetPlan's sessions against one or more
// edgefleet-server addresses (edgefleet.v1.Emulator/RunSession over gRPC)
// and turns each SessionResult into a SessionRecord.
//
// Concurrency is bounded by the spec's arrival.concurrency: that many worker
// threads take sessions in plan order; in OPEN_LOOP each session also waits
// for its seeded Poisson start time. Session k goes to address
// device_id mod n (a retry moves to the next address). Figures are emulated
// device times, a pure function of the session spec, so the ResultSet is
// deterministic for a fixed spec whatever the scheduling.
//
// Retries: a call failing with UNAVAILABLE, RESOURCE_EXHAUSTED,
// DEADLINE_EXCEEDED or ABORTED is retried up to max_retries times with
// exponential backoff. Every failed call is counted by its gRPC code in
// DriverStats; a session whose last call failed becomes a kHarnessError
// record with that code as cause (never dropped), and so does one the server
// stopped (SESSION_OUTCOME_CANCELLED, cause "CANCELLED"). The cli checks
// the servers first (preflight.h).
//
// RunFleet is thread-compatible: one call at a time per DriverOptions.

#ifndef EDGEFLEET_LOADTEST_DRIVER_DRIVER_H_
#define EDGEFLEET_LOADTEST_DRIVER_DRIVER_H_

#include <grpcpp/security/credentials.h>

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/session.pb.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/results/result_set.h"

namespace edgefleet {
namespace loadtest {

struct DriverOptions {
  std::vector<std::string> addresses;  // host:port, >= 1
  // Channel credentials (service/transport_security.h); null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // TLS: the name the server certificate must carry, when it differs from
  // the host in the address; empty: the address's host.
  std::string tls_server_name;
  // Progress bar destination; nullptr for none (cli passes stderr on a TTY).
  std::ostream* progress = nullptr;
};

struct DriverStats {
  uint64_t sessions = 0;             // experiment sessions planned = records written
  uint64_t pre_period_sessions = 0;  // pre-period sessions run (covariates only)
  uint64_t calls = 0;                // RunSession calls made, retries included
  uint64_t retries = 0;              // calls beyond the first of a session
  uint64_t harness_errors = 0;       // sessions whose last call failed
  uint64_t sampled_sessions = 0;     // run in EXECUTION_MODE_SAMPLED
  std::map<std::string, uint64_t> failed_calls_by_code;  // every failed call
  double wall_seconds = 0;
};

// Converts one server result to a record, applying the warm-up policy.
SessionRecord ToRecord(const PlannedSession& planned, const v1::SessionResult& result,
                       uint32_t discard_inferences, uint32_t retries);

// Runs every session of `plan`. Fails only on bad options; call failures
// are records and stats.
absl::StatusOr<ResultSet> RunFleet(const FleetPlan& plan, const DriverOptions& options,
                                   DriverStats* stats);

// "6000 sessions (5952 sampled, 48 real) in 7.4 s; calls 6004 (retries 4),
// harness errors 0; failed calls by code: UNAVAILABLE=4"
std::string DescribeStats(const DriverStats& stats);

// The same as JSON (the cli writes it as driver.json beside the results):
// {"sessions", "sampled_sessions", "calls", "retries", "harness_errors",
//  "failed_calls_by_code": {CODE: n}, "wall_seconds"}.
std::string DriverStatsToJson(const DriverStats& stats);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_DRIVER_DRIVER_H_
