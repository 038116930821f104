#include "service/compute_slots.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

TEST(ComputeSlotsTest, OneClientCannotFillTheQueue) {
  ComputeSlots slots(/*slots=*/2, /*queue_bound=*/16, /*pin=*/false);
  EXPECT_EQ(slots.per_client_bound(), 9);
  std::vector<std::unique_ptr<ComputeSlots::Admission>> mine(9);
  for (auto& admission : mine) ASSERT_TRUE(slots.TryAdmit(&admission, "10.0.0.7").ok());
  std::unique_ptr<ComputeSlots::Admission> extra;
  const absl::Status refused = slots.TryAdmit(&extra, "10.0.0.7");
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("too many calls from this client"), std::string::npos);
  EXPECT_EQ(slots.inflight(), 9);  // the refused call left no trace
  // Another client still gets in, up to the server's own bound.
  std::vector<std::unique_ptr<ComputeSlots::Admission>> theirs(9);
  for (auto& admission : theirs) ASSERT_TRUE(slots.TryAdmit(&admission, "10.0.0.8").ok());
  EXPECT_EQ(slots.TryAdmit(&extra, "10.0.0.9").code(), absl::StatusCode::kResourceExhausted);
  // Leaving frees the client's share.
  mine.pop_back();
  EXPECT_TRUE(slots.TryAdmit(&extra, "10.0.0.7").ok());
}

TEST(ComputeSlotsTest, ClientIsThePeerHost) {
  EXPECT_EQ(ComputeSlots::ClientOf("ipv4:127.0.0.1:51234"), "127.0.0.1");
  EXPECT_EQ(ComputeSlots::ClientOf("ipv6:[::1]:51234"), "[::1]");
  EXPECT_EQ(ComputeSlots::ClientOf("unix:/tmp/s"), "unix:/tmp/s");
}

TEST(ComputeSlotsTest, CancelledWaitForASlotGivesUp) {
  ComputeSlots slots(/*slots=*/1, /*queue_bound=*/0, /*pin=*/false);
  ComputeSlots::Slot held = slots.Acquire();
  std::atomic<bool> cancel{false};
  absl::Status waited;
  std::thread waiter([&] {
    std::unique_ptr<ComputeSlots::Slot> slot;
    waited = slots.Acquire([&] { return cancel.load(); }, &slot);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  cancel = true;
  waiter.join();
  EXPECT_EQ(waited.code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
