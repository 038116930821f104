// The "what explains the difference" section: rows and shares against
// hand-computed values, and the section in the Markdown, HTML (with its
// chart) and JSON reports.

#include "loadtest/report/explanation.h"

#include "gtest/gtest.h"
#include "loadtest/report/analysis.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

// Arm A: 1000 us (dense 600, memory_bound 300, overhead 100); arm B: 1300 us
// (dense 650, memory_bound 550, elementwise 20, overhead 80).
std::vector<std::pair<DeviceTimeBreakdown, DeviceTimeBreakdown>> Pairs() {
  DeviceTimeBreakdown a, b;
  a.device_class = b.device_class = "mid_android";
  a.device_us = 1000;
  a.classes = {{"dense", 600}, {"memory_bound", 300}, {"overhead", 100}};
  a.operators = {{"aten::convolution.out", 900}, {"aten::add.out", 100}};
  b.device_us = 1300;
  b.classes = {{"dense", 650}, {"memory_bound", 550}, {"elementwise", 20}, {"overhead", 80}};
  b.operators = {{"prepacked::conv2d_clamp_run", 1200}, {"aten::add", 100}};
  return {{a, b}};
}

TEST(ExplanationTest, RowsAndSharesByHand) {
  const std::vector<ClassExplanation> e = Explain(Pairs(), /*top_operators=*/3);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].device_class, "mid_android");
  EXPECT_EQ(e[0].a_us, 1000);
  EXPECT_EQ(e[0].b_us, 1300);
  // |B - A|: memory_bound 250, dense 50, elementwise 20, overhead 20 (ties by name).
  ASSERT_EQ(e[0].classes.size(), 4u);
  const char* order[] = {"memory_bound", "dense", "elementwise", "overhead"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(e[0].classes[i].name, order[i]);
  const ExplanationRow& mb = e[0].classes[0];
  EXPECT_DOUBLE_EQ(mb.share_a, 0.3);
  EXPECT_DOUBLE_EQ(mb.share_b, 550.0 / 1300);
  EXPECT_DOUBLE_EQ(mb.share_of_change, 250.0 / 300);
  EXPECT_DOUBLE_EQ(e[0].classes[3].share_of_change, -20.0 / 300);
  double change_share = 0;
  for (const ExplanationRow& r : e[0].classes) change_share += r.share_of_change;
  EXPECT_NEAR(change_share, 1.0, 1e-12);  // every class listed: the change adds up
  // Operators: only in B 1200, only in A 900, then the two adds of 100.
  ASSERT_EQ(e[0].operators.size(), 3u);
  EXPECT_EQ(e[0].operators[0].name, "prepacked::conv2d_clamp_run");
  EXPECT_EQ(e[0].operators[0].a_us, 0);
  EXPECT_EQ(e[0].operators[1].name, "aten::convolution.out");
  EXPECT_DOUBLE_EQ(e[0].operators[1].share_of_change, -900.0 / 300);
}

TEST(ExplanationTest, InEveryReportFormat) {
  SyntheticFleetOptions fleet;
  fleet.devices = 200;
  fleet.seed = 5;
  AnalysisOptions options;
  options.bootstrap_replicates = 200;
  Report report = Analyze(Aggregate(GenerateSyntheticFleet(fleet)), options);
  EXPECT_EQ(RenderMarkdownReport(report).find("What explains the difference"),
            std::string::npos);  // no profiles, no section
  report.explanation = Explain(Pairs());
  const std::string md = RenderMarkdownReport(report);
  EXPECT_NE(md.find("### What explains the difference"), std::string::npos);
  EXPECT_NE(md.find("| `memory_bound` | 300 µs | 550 µs | +250 µs | 30.0 % | 42.3 % | +83.3 % |"),
            std::string::npos)
      << md;
  const std::string html = RenderHtmlReport(report);
  EXPECT_NE(html.find("class=\"chart chart-explain\""), std::string::npos);
  EXPECT_NE(html.find("<h3>mid_android</h3>"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(RenderJsonReport(report));
  ASSERT_EQ(j["explanation"].size(), 1u);
  const auto& c = j["explanation"][0];
  EXPECT_EQ(c["device_class"], "mid_android");
  EXPECT_EQ(c["operator_classes"][0]["name"], "memory_bound");
  EXPECT_DOUBLE_EQ(c["operator_classes"][0]["change_us"].get<double>(), 250);
  EXPECT_EQ(c["operators"].size(), 4u);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
