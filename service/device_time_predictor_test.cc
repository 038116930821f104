#include "service/device_time_predictor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "service/host_profiler.h"
#include "service/host_thread_scaling.h"

namespace edgefleet {
namespace service {
namespace {

// A published reference model the repository does not carry, known only by
// its host profile entry: 10 ms of dense host time.
v1::HostProfile ProfileWithReference() {
  v1::HostProfile profile;
  v1::ModelHostProfile* m = profile.add_models();
  m->set_stack(v1::STACK_EDGEFLEET);
  m->set_model("published_ref");
  m->set_kernels(v1::KERNELS_DEFAULT);
  m->set_total_us(10000);
  for (v1::OpClass c : kOpClasses) {
    v1::OpClassCost* cost = m->add_classes();
    cost->set_op_class(c);
    cost->set_host_us(c == v1::OP_CLASS_DENSE ? 10000 : 0);
  }
  return profile;
}

v1::DeviceClass PhoneWithPoint(double ms) {
  v1::DeviceClass device;
  device.set_name("phone");
  auto* big = device.mutable_cpu()->add_clusters();
  big->set_cores(4);
  big->set_relative_speed(1.0);
  device.mutable_cpu()->set_parallel_fraction(0.9);
  auto* point = device.add_calibration_points();
  point->set_model("published_ref");
  point->set_threads(1);
  point->set_latency_ms(ms);
  return device;
}

TEST(DeviceTimePredictorTest, MeasuresTheArmsModelOnceAndUsesProfileEntriesByName) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  DeviceTimePredictor predictor(repo->get(), ProfileWithReference(), "");
  const v1::DeviceClass device = PhoneWithPoint(40);  // 4x the reference's host time
  absl::StatusOr<ModelOnDevice> first = predictor.For(device, "small_cnn");
  ASSERT_TRUE(first.ok()) << first.status();
  // One point, no prior: every class gets the point's factor (40 ms / 10 ms
  // of host time), so device time = 4 x the model's summed class host time.
  double summed_us = 0;
  for (double us : first->cost.host_us) summed_us += us;
  EXPECT_NEAR(first->PredictMs(1), 4 * summed_us / 1e3, 1e-9);
  EXPECT_NEAR(first->DeviceOverHost(), first->PredictMs(1) * 1e3 / first->host_total_us, 1e-12);
  // (How much depends on how the program scaled on this host: the
  // ThreadsScaleAsTheRuntimeMeasuredOnTheHost test.)
  EXPECT_GE(first->ThreadSpeedup(4), 1.0);
  EXPECT_LE(first->ThreadSpeedup(4), 4.0);
  // The measurement is kept: the same answer, bit for bit.
  absl::StatusOr<ModelOnDevice> again = predictor.For(device, "small_cnn");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->PredictMs(1), first->PredictMs(1));
  EXPECT_EQ(predictor.profile().models_size(), 2);
}

TEST(DeviceTimePredictorTest, ThreadsScaleAsTheRuntimeMeasuredOnTheHost) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  DeviceTimePredictor measuring(repo->get(), ProfileWithReference(), "");
  const v1::DeviceClass device = PhoneWithPoint(40);
  absl::StatusOr<ModelOnDevice> measured = measuring.For(device, "small_cnn");
  ASSERT_TRUE(measured.ok()) << measured.status();
  // The entry the measurement left: its two-thread speedup (when this
  // process may use two CPUs) is what the prediction's serial share is of.
  v1::HostProfile profile = measuring.profile();
  v1::ModelHostProfile* entry = nullptr;
  for (v1::ModelHostProfile& m : *profile.mutable_models()) {
    if (m.model() == "small_cnn") entry = &m;
  }
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(measured->runtime_serial, RuntimeSerialShare(entry->two_thread_speedup()));
  // A runtime that did not scale on the host (speedup 1) gains nothing from
  // device threads; one that doubled (speedup 2) scales as the device model
  // alone (runtime_serial 0).
  const auto with = [&](double host_speedup) {
    entry->set_two_thread_speedup(host_speedup);
    DeviceTimePredictor predictor(repo->get(), profile, "");
    absl::StatusOr<ModelOnDevice> r = predictor.For(device, "small_cnn");
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : ModelOnDevice{};
  };
  ModelOnDevice device_alone = with(2.0);
  EXPECT_EQ(device_alone.runtime_serial, 0.0);
  EXPECT_GT(device_alone.ThreadSpeedup(4), 1.0);
  EXPECT_EQ(with(1.0).ThreadSpeedup(4), 1.0);
  const ModelOnDevice partial = with(1.5);  // sigma = 1/3
  EXPECT_NEAR(partial.runtime_serial, 1.0 / 3, 1e-12);
  EXPECT_GT(partial.ThreadSpeedup(4), 1.0);
  EXPECT_LT(partial.ThreadSpeedup(4), device_alone.ThreadSpeedup(4));
}

// small_cnn's entry as an older profile has it: measured, but without the
// thread scaling.
v1::HostProfile ProfileWithoutScaling(const ModelRepository* repo) {
  DeviceTimePredictor measuring(repo, ProfileWithReference(), "");
  EXPECT_TRUE(measuring.For(PhoneWithPoint(40), "small_cnn").ok());
  v1::HostProfile profile = measuring.profile();
  for (v1::ModelHostProfile& m : *profile.mutable_models()) {
    m.clear_two_thread_speedup();
    m.clear_one_thread_wall_us();
    m.clear_two_thread_wall_us();
  }
  return profile;
}

// The calibration fills the missing thread scaling in, once, from the
// measured times, and writes it back with nothing else changed; the
// emulator's multi-thread figures then use it.
TEST(DeviceTimePredictorTest, CalibrationMeasuresMissingThreadScalingOnce) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  const v1::HostProfile before = ProfileWithoutScaling(repo->get());
  const std::string path =
      ::testing::TempDir() + "/host_profile_" + std::to_string(getpid()) + ".textproto";
  DeviceTimePredictor predictor(repo->get(), before, path);
  std::vector<std::string> measured;
  predictor.set_thread_scaling_measurer([&](const std::string& model, const std::string& file) {
    measured.push_back(model);
    // The repository's program the entry was measured from.
    uint64_t bytes = 0;
    std::string digest;
    EXPECT_TRUE(FileStamp(file, &bytes, &digest).ok()) << file;
    for (const v1::ModelHostProfile& m : before.models()) {
      if (m.model() == model) {
        EXPECT_EQ(digest, m.file_digest());
      }
    }
    return absl::StatusOr<ThreadScaling>(ThreadScaling{3000, 1875});  // 1.6x
  });
  // published_ref is known only by its entry: nothing to run, skipped.
  ASSERT_TRUE(predictor.MeasureMissingThreadScaling({"small_cnn", "published_ref"}).ok());
  ASSERT_TRUE(predictor.MeasureMissingThreadScaling({"small_cnn"}).ok());
  EXPECT_EQ(measured, std::vector<std::string>{"small_cnn"});
  ASSERT_TRUE(predictor.SaveIfChanged().ok());

  absl::StatusOr<v1::HostProfile> written = ReadHostProfile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(written.ok()) << written.status();
  ASSERT_EQ(written->models_size(), before.models_size());
  for (int i = 0; i < before.models_size(); ++i) {
    v1::ModelHostProfile expected = before.models(i);
    if (expected.model() == "small_cnn") {
      expected.set_one_thread_wall_us(3000);
      expected.set_two_thread_wall_us(1875);
      expected.set_two_thread_speedup(1.6);
    }
    EXPECT_EQ(written->models(i).SerializeAsString(), expected.SerializeAsString())
        << expected.model();
  }
  absl::StatusOr<ModelOnDevice> r = predictor.For(PhoneWithPoint(40), "small_cnn");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->runtime_serial, 0.25, 1e-12);  // 2 / 1.6 - 1

  // One CPU: nothing measured, nothing changed; other errors are errors.
  DeviceTimePredictor one_cpu(repo->get(), before, "");
  one_cpu.set_thread_scaling_measurer([](const std::string&, const std::string&) {
    return absl::StatusOr<ThreadScaling>(absl::FailedPreconditionError("one CPU"));
  });
  EXPECT_TRUE(one_cpu.MeasureMissingThreadScaling({"small_cnn"}).ok());
  EXPECT_EQ(one_cpu.profile().SerializeAsString(), before.SerializeAsString());
  one_cpu.set_thread_scaling_measurer([](const std::string&, const std::string&) {
    return absl::StatusOr<ThreadScaling>(absl::InternalError("broken"));
  });
  EXPECT_EQ(one_cpu.MeasureMissingThreadScaling({"small_cnn"}).code(), absl::StatusCode::kInternal);
}

// A server started with a calibration file takes the scaling its entries
// carry into the profile's entries of the same programs.
TEST(DeviceTimePredictorTest, CalibrationEntriesFillInTheScaling) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  const v1::HostProfile before = ProfileWithoutScaling(repo->get());
  DeviceTimePredictor predictor(repo->get(), before, "");
  v1::ModelHostProfile calibrated;
  for (const v1::ModelHostProfile& m : before.models()) {
    if (m.model() == "small_cnn") calibrated = m;
  }
  SetThreadScaling({4000, 2500}, &calibrated);
  predictor.AddMeasured(calibrated);
  const v1::HostProfile after = predictor.profile();
  ASSERT_EQ(after.models_size(), before.models_size());
  for (const v1::ModelHostProfile& m : after.models()) {
    if (m.model() != "small_cnn") continue;
    EXPECT_EQ(m.two_thread_speedup(), 1.6);
    EXPECT_EQ(m.one_thread_wall_us(), 4000);
    EXPECT_EQ(m.two_thread_wall_us(), 2500);
    EXPECT_EQ(m.total_us(), calibrated.total_us());
  }
}

TEST(DeviceTimePredictorTest, UnknownModelsAndPointlessClassesAreRefused) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  DeviceTimePredictor predictor(repo->get(), ProfileWithReference(), "");
  absl::StatusOr<ModelOnDevice> r = predictor.For(PhoneWithPoint(40), "no_such_model");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  v1::DeviceClass bare = PhoneWithPoint(40);
  bare.clear_calibration_points();
  r = predictor.For(bare, "small_cnn");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("no calibration_points"), std::string::npos);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
