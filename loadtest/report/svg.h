// A minimal inline-SVG writer and the scales the charts need. Output is a
// standalone <svg> element styled by CSS classes (the HTML report's <style>
// defines them), with <title> children as hover tooltips: no script, no
// external resource.
//
// Svg is a builder: not thread-safe, use one per chart.

#ifndef EDGEFLEET_LOADTEST_REPORT_SVG_H_
#define EDGEFLEET_LOADTEST_REPORT_SVG_H_

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace edgefleet {
namespace loadtest {

// Escapes &, <, >, " and ' for text and attribute values.
std::string EscapeXml(std::string_view text);

// Maps a data interval onto a pixel interval, linearly or logarithmically.
// REQUIRES for log: 0 < d0 < d1.
class Scale {
 public:
  Scale(double d0, double d1, double r0, double r1, bool log = false);
  double operator()(double v) const;
  bool log() const { return log_; }
  double d0() const { return d0_; }
  double d1() const { return d1_; }

 private:
  double d0_, d1_, r0_, r1_;
  bool log_;
};

// About `target` round tick values (1, 2, 5 x 10^k steps) inside [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target);
// 1, 2, 5 x 10^k ticks inside [lo, hi], for log scales. REQUIRES: 0 < lo.
std::vector<double> LogTicks(double lo, double hi);

class Svg {
 public:
  // `css_class` and `label` (aria-label) identify the chart in the DOM.
  Svg(int width, int height, const std::string& css_class, const std::string& label);

  void Rect(double x, double y, double w, double h, const char* css_class,
            const std::string& tooltip = "");
  void Line(double x1, double y1, double x2, double y2, const char* css_class);
  void Polyline(const std::vector<std::pair<double, double>>& points, const char* css_class,
                const std::string& tooltip = "");
  void Circle(double cx, double cy, double r, const char* css_class,
              const std::string& tooltip = "");
  void Text(double x, double y, const std::string& text, const char* css_class,
            const char* anchor = "start");

  // Closes the element and returns the markup.
  std::string Finish();

 private:
  std::ostringstream out_;
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_SVG_H_
