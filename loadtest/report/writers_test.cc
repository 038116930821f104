#include <fstream>
#include <regex>

#include "gtest/gtest.h"
#include "loadtest/report/analysis.h"
#include "loadtest/report/device_model_note.h"
#include "loadtest/report/format.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

const Report& SampleReport() {
  static const Report* report = [] {
    SyntheticFleetOptions fleet;
    fleet.devices = 800;
    fleet.seed = 21;
    fleet.effect_b.latency = 1.15;
    fleet.effect_class = "mid-android";
    AnalysisOptions options;
    options.bootstrap_replicates = 300;
    return new Report(Analyze(Aggregate(GenerateSyntheticFleet(fleet)), options));
  }();
  return *report;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(WritersTest, JsonFollowsTheSchema) {
  const nlohmann::json j = nlohmann::json::parse(RenderJsonReport(SampleReport()));
  EXPECT_EQ(j["schema"], "edgefleet.loadtest.report/1");
  EXPECT_EQ(j["status"], "regression");
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_FALSE(j["reasons"].empty());
  ASSERT_EQ(j["scopes"].size(), SampleReport().scopes.size());
  const auto& overall = j["scopes"][0];
  EXPECT_EQ(overall["name"], "overall");
  ASSERT_EQ(overall["metrics"].size(), 4u);
  const auto& steady = overall["metrics"][2];
  EXPECT_EQ(steady["metric"], "steady_latency");
  EXPECT_EQ(steady["unit"], "us");
  for (const char* key : {"verdict", "n", "mean", "quantiles", "rank_test", "sample_counts", "cdf",
                          "bootstrap_replicates"}) {
    EXPECT_TRUE(steady.contains(key)) << key;
  }
  const auto& q = steady["quantiles"][0];
  for (const char* key : {"p", "A", "B", "diff", "relative"}) {
    EXPECT_TRUE(q.contains(key)) << key;
  }
  EXPECT_TRUE(q["A"].contains("coverage"));
  EXPECT_EQ(steady["sample_counts"][1]["needed"], 64);
  EXPECT_EQ(overall["rates"]["anr"]["ceiling"], 0.0047);
  EXPECT_TRUE(overall["rates"]["oom"]["ceiling"].is_null());
  EXPECT_TRUE(overall["rates"]["failure"].contains("diff_claim"));
  EXPECT_EQ(j["comparisons"], 8 * (4 * 2 + 3));
  EXPECT_TRUE(overall["srm"].contains("p_value"));
  EXPECT_EQ(steady["cdf"]["p"].size(), steady["cdf"]["A"].size());
}

TEST(WritersTest, MarkdownIsAPrComment) {
  const std::string md = RenderMarkdownReport(SampleReport());
  EXPECT_EQ(md.rfind("## EdgeFleet fleet A/B: ❌ REGRESSION (exit code 2)", 0), 0u);
  for (const char* section :
       {"### Latency, load time and memory (B vs A)", "### ANR, OOM-kill and stack-failure rates",
        "### Sample ratio and sample counts", "<details><summary><b>mid-android</b>"}) {
    EXPECT_NE(md.find(section), std::string::npos) << section;
  }
  EXPECT_NE(md.find("| mid-android | steady_latency |"), std::string::npos);
  EXPECT_NE(md.find("**regression**"), std::string::npos);
  EXPECT_NE(md.find("wilcoxon_signed_rank"), std::string::npos);
}

TEST(WritersTest, HtmlIsSelfContainedWithCharts) {
  const std::string html = RenderHtmlReport(SampleReport());
  const size_t scopes = SampleReport().scopes.size();
  EXPECT_EQ(Count(html, "class=\"chart chart-cdf\""), 2 * scopes);
  EXPECT_EQ(Count(html, "class=\"chart chart-load\""), 1u);
  EXPECT_EQ(Count(html, "class=\"chart chart-memory\""), 1u);
  EXPECT_EQ(Count(html, "class=\"chart chart-rate-anr\""), 1u);
  EXPECT_EQ(Count(html, "class=\"chart chart-rate-oom\""), 1u);
  EXPECT_EQ(Count(html, "<svg"), Count(html, "</svg>"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  const std::regex url("(https?:)?//[a-z]");
  const std::string without_ns =
      std::regex_replace(html, std::regex("http://www\\.w3\\.org/2000/svg"), "");
  EXPECT_FALSE(std::regex_search(without_ns, url));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

namespace edgefleet {
namespace loadtest {
namespace {

// The reports quote the device-time model's validated error next to their
// verdict, with the figures of the repository's fidelity summary (read here
// independently of the compiled-in copy).
TEST(WritersTest, ReportsStateTheDeviceModelsValidatedError) {
  std::ifstream in(std::string(EF_SOURCE_DIR) + "/docs/fidelity/summary.json");
  ASSERT_TRUE(in) << "docs/fidelity/summary.json missing";
  const nlohmann::json summary = nlohmann::json::parse(in);
  const double median = summary["single_thread_held_out_device"]["median_abs_error"].get<double>();
  const DeviceModelError compiled = ValidatedDeviceModelError();
  EXPECT_DOUBLE_EQ(compiled.median_abs_error, median);
  EXPECT_DOUBLE_EQ(
      compiled.unseen_model_median,
      summary["single_thread_held_out_device_and_model"]["median_abs_error"].get<double>());
  const std::string note = DeviceModelNote();
  EXPECT_NE(note.find("median error is " + FormatNumber(100 * median) + " %"), std::string::npos)
      << note;
  const Report report = SampleReport();
  EXPECT_NE(RenderMarkdownReport(report).find(note), std::string::npos);
  EXPECT_NE(RenderHtmlReport(report).find("median error is " + FormatNumber(100 * median)),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(RenderJsonReport(report))["device_model_note"], note);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
