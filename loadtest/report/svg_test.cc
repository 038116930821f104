#include "loadtest/report/svg.h"

#include "gtest/gtest.h"
#include "loadtest/report/format.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(SvgTest, EscapesMarkup) {
  EXPECT_EQ(EscapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  Svg svg(10, 10, "chart-x", "<label>");
  svg.Text(1, 2, "p50 < p90", "small");
  const std::string out = svg.Finish();
  EXPECT_NE(out.find("aria-label=\"&lt;label&gt;\""), std::string::npos);
  EXPECT_NE(out.find(">p50 &lt; p90</text>"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 6), "</svg>");
}

TEST(SvgTest, Scales) {
  const Scale lin(0, 10, 100, 200);
  EXPECT_DOUBLE_EQ(lin(5), 150);
  const Scale log(1, 100, 0, 100, /*log=*/true);
  EXPECT_DOUBLE_EQ(log(10), 50);
  const Scale flipped(0, 1, 200, 0);
  EXPECT_DOUBLE_EQ(flipped(0.25), 150);
}

TEST(SvgTest, Ticks) {
  EXPECT_EQ(NiceTicks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(0, 0.047, 4), (std::vector<double>{0, 0.02, 0.04}));
  EXPECT_EQ(NiceTicks(0, 0.047, 5), (std::vector<double>{0, 0.01, 0.02, 0.03, 0.04}));
  EXPECT_EQ(LogTicks(3, 60), (std::vector<double>{5, 10, 20, 50}));
}

TEST(FormatTest, UnitsAndSigns) {
  EXPECT_EQ(FormatValue(Metric::kSteadyLatency, 850), "850 µs");
  EXPECT_EQ(FormatValue(Metric::kSteadyLatency, 18000), "18.0 ms");
  EXPECT_EQ(FormatValue(Metric::kLoadTime, 2500000), "2.50 s");
  EXPECT_EQ(FormatValue(Metric::kPeakMemory, 84.25 * 1024 * 1024), "84.2 MiB");
  EXPECT_EQ(FormatDelta(Metric::kSteadyLatency, 1200), "+1.20 ms");
  EXPECT_EQ(FormatSignedPercent(0.142), "+14.2 %");
  EXPECT_EQ(FormatPercent(0.0047), "0.47 %");
  EXPECT_EQ(FormatPercentInterval(-0.01, 0.03), "[-1.0 %, +3.0 %]");
  EXPECT_EQ(FormatValue(Metric::kLoadTime, 1.0 / 0.0), "∞");
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
