// edgefleet-health: the gRPC health client of `edgefleet-server health`
// (service/health_probe.h, same flags and exit codes) as a binary of its
// own, linked without libtorch, for exec probes that run every few
// seconds.

#include <string>
#include <vector>

#include "service/health_probe.h"

int main(int argc, char** argv) {
  return edgefleet::service::HealthProbeMain(std::vector<std::string>(argv + 1, argv + argc));
}
