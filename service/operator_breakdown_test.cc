#include "service/operator_breakdown.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgefleet {
namespace service {
namespace {

ProfiledOperator Op(const char* name, v1::OpClass c, double host_us) {
  ProfiledOperator op;
  op.name = name;
  op.kernel = "optimized";
  op.op_class = c;
  op.nanos = host_us * 1e3;
  return op;
}

// Hand-computed: factors 2 (dense 3x3), 3 (memory-bound), 5 (elementwise),
// 10 (overhead), model offset exp(0.1); two equal cores, parallel fraction
// 0.5: two threads speed every class but the overhead by 1 / (0.5 + 0.25).
TEST(OperatorBreakdown, DeviceTimePerOperatorAndClassByHand) {
  v1::Arm arm;
  arm.set_name("a");
  arm.set_model("m");
  arm.set_threads(2);
  v1::DeviceClass device;
  device.set_name("phone");
  auto* cluster = device.mutable_cpu()->add_clusters();
  cluster->set_cores(2);
  cluster->set_relative_speed(1.0);
  ModelOnDevice on_device;
  on_device.cpu = device.cpu();
  on_device.factors.parallel_fraction = 0.5;
  on_device.factors.log_factor[OpClassIndex(v1::OP_CLASS_DENSE_3X3)] = std::log(2.0);
  on_device.factors.log_factor[OpClassIndex(v1::OP_CLASS_MEMORY_BOUND)] = std::log(3.0);
  on_device.factors.log_factor[OpClassIndex(v1::OP_CLASS_ELEMENTWISE)] = std::log(5.0);
  on_device.factors.log_factor[OpClassIndex(v1::OP_CLASS_OVERHEAD)] = std::log(10.0);
  on_device.cost.log_offset = 0.1;
  OperatorProfile measured;
  measured.operators = {Op("aten::convolution.out", v1::OP_CLASS_DENSE_3X3, 100),
                        Op("aten::convolution.out", v1::OP_CLASS_MEMORY_BOUND, 40),
                        Op("aten::relu.out", v1::OP_CLASS_ELEMENTWISE, 8),
                        Op("aten::convolution.out", v1::OP_CLASS_DENSE_3X3, 50)};

  const v1::ProfileResponse r = OperatorBreakdown(arm, device, measured, on_device, 1.5);
  const double k = std::exp(0.1) * 1.5, speedup = 1 / 0.75;
  const double expected[] = {(2 * 100 / speedup + 10) * k, (3 * 40 / speedup + 10) * k,
                             (5 * 8 / speedup + 10) * k, (2 * 50 / speedup + 10) * k};
  ASSERT_EQ(r.operators_size(), 4);
  double total = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.operators(i).index(), static_cast<uint32_t>(i));
    EXPECT_NEAR(r.operators(i).device_us(), expected[i], 1e-9) << i;
    total += expected[i];
  }
  EXPECT_NEAR(r.device_us(), total, 1e-9);
  EXPECT_NEAR(r.host_us(), 198, 1e-9);
  EXPECT_NEAR(r.operators(0).share(), expected[0] / total, 1e-12);
  EXPECT_EQ(r.threads(), 2u);
  EXPECT_EQ(r.time_scale(), 1.5);

  ASSERT_EQ(r.classes_size(), kNumOpClasses);
  double class_total = 0;
  for (const v1::OpClassDeviceTime& c : r.classes()) {
    class_total += c.device_us();
    EXPECT_NEAR(c.device_us(), c.rate() * c.host_us(), 1e-9) << OpClassName(c.op_class());
    if (c.op_class() == v1::OP_CLASS_DENSE_3X3) {
      EXPECT_EQ(c.operators(), 2u);
      EXPECT_NEAR(c.host_us(), 150, 1e-9);
      EXPECT_NEAR(c.device_us(), 2 * 150 / speedup * k, 1e-9);
    } else if (c.op_class() == v1::OP_CLASS_OVERHEAD) {
      EXPECT_EQ(c.operators(), 4u);
      EXPECT_NEAR(c.host_us(), 4, 1e-9);
      EXPECT_NEAR(c.device_us(), 4 * 10 * k, 1e-9);  // never sped up by threads
    } else if (c.op_class() == v1::OP_CLASS_DENSE) {
      EXPECT_EQ(c.operators(), 0u);
      EXPECT_EQ(c.device_us(), 0);
    }
  }
  EXPECT_NEAR(class_total, total, 1e-9);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
