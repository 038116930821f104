// RunSession through generated stubs against the real server: determinism
// under a CPU-burning neighbour, old vs new stack load, OOM kills, ANRs.
// Each test prints the figures it checks.

#include <grpcpp/client_context.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "test/service/service_stubs.h"

namespace edgefleet {
namespace testing {
namespace {

std::vector<std::string> Flags() {
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back(std::string("--calibration=") + EF_TEST_CALIBRATION);
  return flags;
}

v1::SessionResult RunSession(const ServerProcess& server, const v1::SessionSpec& spec) {
  v1::RunSessionRequest request;
  *request.mutable_spec() = spec;
  v1::SessionResult result;
  grpc::ClientContext context;
  const grpc::Status status = EmulatorStub(server)->RunSession(&context, request, &result);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return result;
}

v1::SessionSpec Spec(const std::string& arm, const std::string& device_class, uint64_t seed,
                     uint32_t inferences) {
  v1::SessionSpec spec;
  spec.set_arm(arm);
  spec.set_device_class(device_class);
  spec.set_seed(seed);
  spec.set_inferences(inferences);
  spec.set_inter_arrival_ms(33);
  return spec;
}

void Print(const char* what, const v1::SessionResult& r) {
  int64_t sum = 0;
  for (int64_t us : r.latency_us()) sum += us;
  printf(
      "%-28s %-24s %-18s outcome=%s load=%lld us (read %lld, parse %lld, init %lld; %llu bytes)"
      " first=%lld us mean=%lld us peak_mem=%llu budget=%llu anr=%u slow=%u frozen=%u/%u"
      " host_load=%lld us host_median=%lld us\n",
      what, r.arm().c_str(), r.device_class().c_str(), v1::SessionOutcome_Name(r.outcome()).c_str(),
      (long long)r.load().total_us(), (long long)r.load().read_us(), (long long)r.load().parse_us(),
      (long long)r.load().init_us(), (unsigned long long)r.load().bytes_read(),
      (long long)r.first_inference_us(),
      (long long)(r.latency_us_size() ? sum / r.latency_us_size() : 0),
      (unsigned long long)r.peak_memory_bytes(), (unsigned long long)r.memory_budget_bytes(),
      r.anr_count(), r.slow_frames(), r.frozen_frames(), r.total_frames(),
      (long long)r.host().load_us(), (long long)r.host().median_inference_us());
}

// Everything but the host's own (informational) measurements.
v1::SessionResult Emulated(v1::SessionResult r) {
  r.clear_host();
  return r;
}

TEST(SessionTest, SameSeedSameFiguresWithAndWithoutCpuBurner) {
  ServerProcess quiet;
  ASSERT_TRUE(quiet.Start(Flags())) << quiet.log();
  const std::vector<v1::SessionSpec> specs = {
      Spec("mobilenet.edgefleet", "mid_android", 42, 12),
      Spec("mobilenet.pytorch-mobile", "mid_android", 42, 12),
      Spec("mobilenet.edgefleet", "low_android", 7, 12)};
  std::vector<v1::SessionResult> before;
  for (const auto& spec : specs) before.push_back(RunSession(quiet, spec));

  // A neighbour burning every host core.
  std::atomic<bool> stop{false};
  std::vector<std::thread> burners;
  const long cores = std::max(2L, sysconf(_SC_NPROCESSORS_ONLN));
  for (long i = 0; i < cores; ++i) {
    burners.emplace_back([&stop] {
      volatile double x = 1;
      while (!stop.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
    });
  }
  std::vector<v1::SessionResult> busy_same_server, busy_new_server;
  for (const auto& spec : specs) busy_same_server.push_back(RunSession(quiet, spec));
  ServerProcess loaded;  // a fresh server started under load
  const bool started = loaded.Start(Flags());
  if (started) {
    for (const auto& spec : specs) busy_new_server.push_back(RunSession(loaded, spec));
  }
  stop = true;
  for (auto& t : burners) t.join();
  ASSERT_TRUE(started) << loaded.log();

  for (size_t i = 0; i < specs.size(); ++i) {
    Print("quiet host", before[i]);
    Print("burner, same server", busy_same_server[i]);
    Print("burner, new server", busy_new_server[i]);
    EXPECT_EQ(before[i].outcome(), v1::SESSION_OUTCOME_OK);
    EXPECT_EQ(Emulated(before[i]).SerializeAsString(),
              Emulated(busy_same_server[i]).SerializeAsString())
        << Emulated(before[i]).DebugString() << "\nvs\n"
        << Emulated(busy_same_server[i]).DebugString();
    EXPECT_EQ(Emulated(before[i]).SerializeAsString(),
              Emulated(busy_new_server[i]).SerializeAsString());
  }
  // Paired sessions: the same seed gives both arms the same device and
  // inputs, so their outputs agree.
  EXPECT_NEAR(before[0].output_checksum(), before[1].output_checksum(), 1e-3);
  EXPECT_EQ(quiet.Terminate(), 0);
  EXPECT_EQ(loaded.Terminate(), 0);
}

TEST(SessionTest, OldStackLoadReadsTheWholeArchiveInOnePhase) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  const uint64_t ptl_bytes = std::filesystem::file_size("test/fixtures/mobilenet_v2_035/model.ptl");
  for (const char* device_class : {"low_android", "mid_android", "high_android"}) {
    const v1::SessionResult pte =
        RunSession(server, Spec("mobilenet.edgefleet", device_class, 1, 5));
    const v1::SessionResult ptl =
        RunSession(server, Spec("mobilenet.pytorch-mobile", device_class, 1, 5));
    Print("new stack (.pte)", pte);
    Print("old stack (.ptl)", ptl);
    ASSERT_EQ(pte.outcome(), v1::SESSION_OUTCOME_OK) << pte.error_message();
    ASSERT_EQ(ptl.outcome(), v1::SESSION_OUTCOME_OK) << ptl.error_message();
    // The lite interpreter reads the whole zip archive, copies the weights
    // onto the heap and packs them for XNNPACK, all in one timed phase
    // (parse); the new stack maps its file and has a separate init. Which
    // loads faster is a figure (docs/service.md), not asserted.
    EXPECT_EQ(ptl.load().bytes_read(), ptl_bytes);
    EXPECT_GT(ptl.load().parse_us(), 0);
    EXPECT_EQ(ptl.load().init_us(), 0);
    EXPECT_GT(pte.load().init_us(), 0);
    // Peak memory is not ordered by design either: each stack keeps what
    // it packs at load (docs/service.md).
  }
}

TEST(SessionTest, BudgetBelowTheModelsNeedsIsAnOomKill) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  for (const char* arm : {"mobilenet.edgefleet", "mobilenet.pytorch-mobile"}) {
    const v1::SessionResult r = RunSession(server, Spec(arm, "test_tiny_memory", 3, 5));
    Print("512 KB budget", r);
    EXPECT_EQ(r.outcome(), v1::SESSION_OUTCOME_OOM_KILLED);
    EXPECT_GT(r.peak_memory_bytes(), r.memory_budget_bytes());
    EXPECT_NE(r.error_message().find("exceeds the app budget"), std::string::npos);
  }
  // On the microcontroller (1 MB budget) only the new stack's heap counts
  // (constants stay in flash): killed exactly when its peak is over. The old
  // stack does not run on bare metal at all.
  const v1::SessionResult mcu =
      RunSession(server, Spec("mobilenet.edgefleet", "microcontroller", 3, 2));
  Print("microcontroller", mcu);
  EXPECT_EQ(mcu.outcome(), mcu.peak_memory_bytes() > mcu.memory_budget_bytes()
                               ? v1::SESSION_OUTCOME_OOM_KILLED
                               : v1::SESSION_OUTCOME_OK);
  const v1::SessionResult old_mcu =
      RunSession(server, Spec("mobilenet.pytorch-mobile", "microcontroller", 3, 2));
  EXPECT_EQ(old_mcu.outcome(), v1::SESSION_OUTCOME_ERROR);
  EXPECT_NE(old_mcu.error_message().find("bare metal"), std::string::npos);
  // The same model fits a phone.
  const v1::SessionResult phone =
      RunSession(server, Spec("mobilenet.edgefleet", "mid_android", 3, 2));
  EXPECT_EQ(phone.outcome(), v1::SESSION_OUTCOME_OK);
}

TEST(SessionTest, MainThreadLoadLongerThanTheAnrTimeoutIsAnAnr) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  v1::SessionSpec spec = Spec("mobilenet.legacy", "test_slow_storage", 5, 3);
  const v1::SessionResult legacy = RunSession(server, spec);
  Print("load on main thread", legacy);
  ASSERT_EQ(legacy.outcome(), v1::SESSION_OUTCOME_OK) << legacy.error_message();
  EXPECT_GT(legacy.load().total_us(), 5000000);
  EXPECT_GE(legacy.anr_count(), 1u);
  EXPECT_GE(legacy.frozen_frames(), 1u);
  EXPECT_GT(legacy.max_input_delay_us(), 5000000);

  spec.set_integration_policy(v1::INTEGRATION_POLICY_BACKGROUND);
  const v1::SessionResult background = RunSession(server, spec);
  Print("load on a worker", background);
  EXPECT_EQ(background.anr_count(), 0u);
  EXPECT_EQ(background.load().total_us(), legacy.load().total_us());

  // On a real phone's storage the same main-thread load is no ANR.
  const v1::SessionResult phone = RunSession(server, Spec("mobilenet.legacy", "mid_android", 5, 3));
  Print("main thread, mid phone", phone);
  EXPECT_EQ(phone.anr_count(), 0u);
}

// A class with DeviceVariation: a device's compute-time factor follows its
// device_seed (whatever the session seed and the arm), is returned, and
// scales its compute times; a class without it returns exactly 1.
TEST(SessionTest, DeviceSpeedDrawFollowsTheDeviceSeed) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  auto run = [&](uint64_t device_seed, uint64_t seed) {
    v1::SessionSpec spec = Spec("small_cnn.edgefleet", "test_device_variation", seed, 12);
    spec.set_device_seed(device_seed);
    spec.set_execution_mode(v1::EXECUTION_MODE_SAMPLED);
    const v1::SessionResult r = RunSession(server, spec);
    EXPECT_EQ(r.outcome(), v1::SESSION_OUTCOME_OK) << r.error_message();
    return r;
  };
  const v1::SessionResult d1 = run(101, 5), d1_again = run(101, 6), d2 = run(202, 5);
  printf("device factors: %.4f %.4f %.4f\n", d1.device_time_factor(), d1_again.device_time_factor(),
         d2.device_time_factor());
  EXPECT_EQ(d1.device_time_factor(), d1_again.device_time_factor());
  EXPECT_NE(d1.device_time_factor(), d2.device_time_factor());
  EXPECT_GT(d1.device_time_factor(), 0.3);
  EXPECT_LT(d1.device_time_factor(), 3.0);
  // Same session seed (same OS noise), other device: compute times scale
  // by the ratio of the factors (rounding to microseconds and the slightly
  // different heat build-up aside).
  ASSERT_EQ(d1.latency_us_size(), d2.latency_us_size());
  double sum1 = 0, sum2 = 0;
  for (int i = 0; i < d1.latency_us_size(); ++i) {
    sum1 += static_cast<double>(d1.latency_us(i));
    sum2 += static_cast<double>(d2.latency_us(i));
  }
  EXPECT_NEAR(sum2 / sum1, d2.device_time_factor() / d1.device_time_factor(),
              0.01 * d2.device_time_factor() / d1.device_time_factor());
  // Without device_seed every session is its own device (drawn from seed).
  v1::SessionSpec own = Spec("small_cnn.edgefleet", "test_device_variation", 101, 2);
  own.set_execution_mode(v1::EXECUTION_MODE_SAMPLED);
  EXPECT_EQ(RunSession(server, own).device_time_factor(), d1.device_time_factor());
  v1::SessionSpec plain = Spec("small_cnn.edgefleet", "mid_android", 5, 2);
  plain.set_device_seed(101);
  plain.set_execution_mode(v1::EXECUTION_MODE_SAMPLED);
  EXPECT_EQ(RunSession(server, plain).device_time_factor(), 1.0);
}

TEST(SessionTest, ExperimentStreamsPairedSessions) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  v1::RunExperimentRequest request;
  request.set_experiment_id("exp");
  v1::ExperimentPlan* plan = request.mutable_plan();
  plan->add_arms("small_cnn.edgefleet");
  plan->add_arms("small_cnn.pytorch-mobile");
  plan->add_device_classes("low_android");
  plan->add_device_classes("high_android");
  plan->set_sessions_per_class(3);
  plan->set_base_seed(11);
  plan->set_inferences(4);
  grpc::ClientContext context;
  auto reader = EmulatorStub(server)->RunExperiment(&context, request);
  std::vector<v1::SessionResult> results(12);
  v1::SessionResult result;
  int count = 0;
  while (reader->Read(&result)) {
    ASSERT_LT(result.index(), 12u);
    results[result.index()] = result;
    ++count;
  }
  const grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(count, 12);
  for (size_t i = 0; i < results.size(); i += 2) {
    EXPECT_EQ(results[i].seed(), results[i + 1].seed());  // paired
    EXPECT_EQ(results[i].arm(), "small_cnn.edgefleet");
    EXPECT_EQ(results[i + 1].arm(), "small_cnn.pytorch-mobile");
    EXPECT_EQ(results[i].outcome(), v1::SESSION_OUTCOME_OK) << results[i].error_message();
    EXPECT_EQ(results[i + 1].outcome(), v1::SESSION_OUTCOME_OK) << results[i + 1].error_message();
    EXPECT_EQ(results[i].latency_us_size(), 4);
  }
  // Sampled mode gives the real run's figures without executing.
  v1::SessionSpec spec = Spec("small_cnn.edgefleet", "low_android", results[0].seed(), 4);
  spec.set_inter_arrival_ms(0);
  const v1::SessionResult real = RunSession(server, spec);
  spec.set_execution_mode(v1::EXECUTION_MODE_SAMPLED);
  const v1::SessionResult sampled = RunSession(server, spec);
  EXPECT_EQ(Emulated(real).SerializeAsString(), Emulated(sampled).SerializeAsString());
}

}  // namespace
}  // namespace testing
}  // namespace edgefleet
