// Line and step plots as inline SVG, with axes, tick marks, tick labels and axis titles: the
// best speedup of a search over wall-clock time and over candidates.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace asmevo::report {

struct Series {
  std::string Name, Colour;
  std::vector<std::pair<double, double>> Points; // (x, y), by x
  bool Step = false; // a staircase through the points (a running best), else dots only
};

struct PlotSpec {
  std::string Title, XTitle, YTitle;
  std::vector<Series> Lines;
  double Width = 560, Height = 300;
};

// About Target evenly spaced round values (1, 2 or 5 times a power of ten) covering [Lo, Hi].
std::vector<double> niceTicks(double Lo, double Hi, unsigned Target = 5);

// The SVG element (class "plot"; axis titles are <text class="axis-title">, tick labels
// <text class="tick">). A plot with no points draws its axes and says so.
std::string plotSvg(const PlotSpec &P);

} // namespace asmevo::report
