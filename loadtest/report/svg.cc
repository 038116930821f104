#include "loadtest/report/svg.h"

#include <algorithm>
#include <cmath>

namespace edgefleet {
namespace loadtest {
namespace {

void Tooltip(std::ostringstream& out, const std::string& tooltip) {
  if (!tooltip.empty()) out << "<title>" << EscapeXml(tooltip) << "</title>";
}

}  // namespace

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Scale::Scale(double d0, double d1, double r0, double r1, bool log)
    : d0_(d0), d1_(d1 > d0 ? d1 : d0 + 1), r0_(r0), r1_(r1), log_(log) {}

double Scale::operator()(double v) const {
  const double t = log_ ? (std::log(v) - std::log(d0_)) / (std::log(d1_) - std::log(d0_))
                        : (v - d0_) / (d1_ - d0_);
  return r0_ + t * (r1_ - r0_);
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1) return ticks;
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::vector<double> LogTicks(double lo, double hi) {
  std::vector<double> ticks;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double t = m * decade;
      if (t >= lo && t <= hi) ticks.push_back(t);
    }
  }
  return ticks;
}

Svg::Svg(int width, int height, const std::string& css_class, const std::string& label) {
  out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart " << EscapeXml(css_class)
       << "\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' '
       << height << "\" role=\"img\" aria-label=\"" << EscapeXml(label) << "\">";
  out_.setf(std::ios::fixed);
  out_.precision(1);
}

void Svg::Rect(double x, double y, double w, double h, const char* css_class,
               const std::string& tooltip) {
  out_ << "<rect class=\"" << css_class << "\" x=\"" << x << "\" y=\"" << y << "\" width=\""
       << std::max(0.0, w) << "\" height=\"" << std::max(0.0, h) << "\">";
  Tooltip(out_, tooltip);
  out_ << "</rect>";
}

void Svg::Line(double x1, double y1, double x2, double y2, const char* css_class) {
  out_ << "<line class=\"" << css_class << "\" x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2
       << "\" y2=\"" << y2 << "\"/>";
}

void Svg::Polyline(const std::vector<std::pair<double, double>>& points, const char* css_class,
                   const std::string& tooltip) {
  out_ << "<polyline class=\"" << css_class << "\" points=\"";
  for (const auto& [x, y] : points) out_ << x << ',' << y << ' ';
  out_ << "\">";
  Tooltip(out_, tooltip);
  out_ << "</polyline>";
}

void Svg::Circle(double cx, double cy, double r, const char* css_class,
                 const std::string& tooltip) {
  out_ << "<circle class=\"" << css_class << "\" cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << r
       << "\">";
  Tooltip(out_, tooltip);
  out_ << "</circle>";
}

void Svg::Text(double x, double y, const std::string& text, const char* css_class,
               const char* anchor) {
  out_ << "<text class=\"" << css_class << "\" x=\"" << x << "\" y=\"" << y << "\" text-anchor=\""
       << anchor << "\">" << EscapeXml(text) << "</text>";
}

std::string Svg::Finish() {
  out_ << "</svg>";
  return out_.str();
}

}  // namespace loadtest
}  // namespace edgefleet
