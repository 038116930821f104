// The device-time model's command line (edgefleet-server subcommands):
//
//   edgefleet-server predict --model_repository=DIR [--device_classes=DIR]
//       [--device_class=NAME] [--calibrate=MODEL@THREADS=MS]... [--model=NAME]...
//       [--threads=N] [--stack=edgefleet] [--host_profile=FILE] [--json]
//     prints {"device_class": ..., "threads": N, "predictions": [{"model": NAME,
//     "device_ms": X}, ...], "factors": {...}, ...}: the predicted steady-state
//     single-inference latency of each named model (default: every model in
//     the repository) on the class (default mid_android). --calibrate points
//     replace the class's calibration_points; a class without points falls
//     back to its reference figure as the point mobilenet_v2@1. Host costs missing from the host
//     profile (or measured from a different file) are measured, and written
//     back to --host_profile when given.
//
//   edgefleet-server fit-prior --model_repository=DIR --host_profile=FILE
//       --published=CSV... [--exclude_device=NAME]... [--exclude_model=NAME]...
//       [--out=FILE]
//     fits the population prior (device_time_fit.h FitPrior) to the published
//     figures of every device in the CSVs (a device name may appear in only
//     one of them) except the excluded devices and models
//     (an excluded model gets no offsets: it is predicted as an unseen one),
//     and writes the host profile with it to --out (default: --host_profile).
//
// Both return the process exit code: 0, 1 (a measurement or fit failed), 2
// (bad flags or configuration); errors are one line on stderr.

#ifndef EDGEFLEET_SERVICE_PREDICT_MAIN_H_
#define EDGEFLEET_SERVICE_PREDICT_MAIN_H_

#include <string>
#include <vector>

namespace edgefleet {
namespace service {

// `args` without the program name and subcommand word.
int PredictMain(const std::vector<std::string>& args);
int FitPriorMain(const std::vector<std::string>& args);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_PREDICT_MAIN_H_
