// ServerProcess: starts the real edgefleet-server binary on loopback with
// ephemeral ports (a child process) for integration tests, and stops it.
//
// The server is started with --port=0 --metrics_port=0 and a port file in a
// fresh temporary directory; Start() waits until the file appears (the
// server is listening) or the child exits. Stderr goes to a log file that
// failures print. The destructor kills a child still running. Part of
// ef_test_util in builds with the service (EF_BUILD_SERVICE); gRPC stubs for
// a running server are in test/service/service_stubs.h.
// Not thread-safe; one owner.

#ifndef EDGEFLEET_TEST_UTIL_SERVER_PROCESS_H_
#define EDGEFLEET_TEST_UTIL_SERVER_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace edgefleet {
namespace testing {

// Flags every test server gets: the fixtures as model repository, the
// default device classes plus the test classes, the test arms, no shutdown
// grace period (tests stop servers at once).
std::vector<std::string> DefaultServerFlags();

// A fresh temporary directory under /tmp, removed with its contents when
// this process exits normally (a test that fails prints what it needs
// first: ServerProcess::log()). Thread-safe.
std::string MakeTempDir();

class ServerProcess {
 public:
  // Starts the server with `flags`; false if it exited or did not listen in
  // time (log() says why).
  bool Start(const std::vector<std::string>& flags);
  ~ServerProcess();

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(grpc_port_); }
  pid_t pid() const { return pid_; }

  // The server's stderr so far.
  std::string log() const;

  // Sends SIGTERM and waits; returns the exit code (-signal if killed).
  int Terminate();
  // Waits for the child to exit by itself; returns the exit code.
  int WaitExit();

 private:
  pid_t pid_ = -1;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  std::string dir_;
};

// Runs `edgefleet-server calibrate` with `flags` writing `out`; returns the
// exit code.
int RunCalibrate(const std::vector<std::string>& flags, const std::string& out);

// The body of GET http://127.0.0.1:<port>/metrics (via curl).
std::string FetchMetrics(int port);

}  // namespace testing
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_UTIL_SERVER_PROCESS_H_
