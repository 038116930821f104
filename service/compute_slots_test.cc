#include "service/compute_slots.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace edgefleet {
namespace service {
namespace {

TEST(ComputeSlotsTest, AtMostSlotsHoldersAtOnce) {
  ComputeSlots slots(/*slots=*/2, /*queue_bound=*/0, /*pin=*/true);
  std::atomic<int> holding{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        ComputeSlots::Slot slot = slots.Acquire();
        const int now = ++holding;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        --holding;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(most.load(), 2);
}

TEST(ComputeSlotsTest, AdmissionStopsAtSlotsPlusQueueBound) {
  int last_reported = -1;
  ComputeSlots slots(/*slots=*/1, /*queue_bound=*/2, /*pin=*/false,
                     [&](int n) { last_reported = n; });
  std::vector<std::unique_ptr<ComputeSlots::Admission>> in(3);
  for (auto& admission : in) ASSERT_TRUE(slots.TryAdmit(&admission).ok());
  EXPECT_EQ(last_reported, 3);
  std::unique_ptr<ComputeSlots::Admission> extra;
  const absl::Status busy = slots.TryAdmit(&extra);
  EXPECT_EQ(busy.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(busy.message().find("queue bound 2"), std::string::npos);
  in.pop_back();
  EXPECT_EQ(last_reported, 2);
  EXPECT_TRUE(slots.TryAdmit(&extra).ok());
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
