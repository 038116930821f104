// ServerMain: edgefleet-server's entry point (main.cc only calls it).
//
//   edgefleet-server --model_repository=DIR [flags]   serve until SIGTERM/SIGINT,
//                                                     drain in-flight calls, exit 0
//   edgefleet-server calibrate --model_repository=DIR --out=FILE
//                                                     measure the host, write FILE
//   edgefleet-server predict ... / fit-prior ...      the device-time model
//                                                     (predict_main.h)
// Returns the process exit code (2 for bad flags or configuration).

#ifndef EDGEFLEET_SERVICE_SERVER_MAIN_H_
#define EDGEFLEET_SERVICE_SERVER_MAIN_H_

namespace edgefleet {
namespace service {

int ServerMain(int argc, char** argv);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_SERVER_MAIN_H_
