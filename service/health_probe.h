// `edgefleet-server health`: a client of the gRPC health protocol
// (grpc.health.v1.Health/Check) for orchestrators that probe by running a
// command (containers, exec probes when the gRPC port speaks TLS). Also
// built alone as `edgefleet-health` (health_main.cc), without libtorch, so
// that a probe run every few seconds costs little.
//
//   edgefleet-server health [--address=HOST:PORT] [--service=NAME]
//       [--timeout_s=N] [--tls_ca=FILE [--tls_cert=FILE --tls_key=FILE]]
//       [--tls_server_name=NAME]
//
// Exit 0 when the server answers SERVING; 1 otherwise (NOT_SERVING,
// unreachable, TLS failure, timeout), with one line on stderr; 2 for bad
// flags. Not thread-safe (writes stderr); call from main.

#ifndef EDGEFLEET_SERVICE_HEALTH_PROBE_H_
#define EDGEFLEET_SERVICE_HEALTH_PROBE_H_

#include <string>
#include <vector>

namespace edgefleet {
namespace service {

// `args` are the words after "health".
int HealthProbeMain(const std::vector<std::string>& args);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_HEALTH_PROBE_H_
