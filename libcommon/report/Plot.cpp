// Line and step plots as inline SVG (report/Plot.h).
#include "report/Plot.h"

#include "report/Html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace asmevo::report {

std::vector<double> niceTicks(double Lo, double Hi, unsigned Target) {
  if (!(Hi > Lo) || !std::isfinite(Lo) || !std::isfinite(Hi))
    return {Lo};
  double Raw = (Hi - Lo) / std::max(1u, Target);
  double Mag = std::pow(10.0, std::floor(std::log10(Raw)));
  double Step = Mag;
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * Mag >= Raw) {
      Step = M * Mag;
      break;
    }
  // A step below the precision of the values (a range of 1e-9 around 1e6) would never move V:
  // the ends are then the ticks.
  double First = std::ceil(Lo / Step - 1e-9) * Step;
  if (!std::isfinite(Step) || !(Step > 0) || !std::isfinite(First) || First + Step == First ||
      (Hi - Lo) / Step > 100)
    return {Lo, Hi};
  std::vector<double> T;
  for (double V = First; V <= Hi + Step * 1e-9; V += Step)
    T.push_back(std::fabs(V) < Step * 1e-9 ? 0.0 : V);
  if (T.empty())
    T.push_back(Lo);
  return T;
}

namespace {

// A tick label with as many decimals as the step between ticks needs.
std::string tickText(double V, const std::vector<double> &Ticks) {
  double Step = Ticks.size() > 1 ? Ticks[1] - Ticks[0] : 1;
  int D = Step >= 1 ? 0 : int(std::ceil(-std::log10(Step) - 1e-9));
  return num(V, std::min(D, 6));
}

// The range of one axis, widened when it is a point.
std::pair<double, double> range(double Lo, double Hi) {
  if (Lo > Hi)
    return {0, 1};
  if (Hi - Lo < 1e-12) {
    double Pad = std::max(std::fabs(Lo) * 0.05, 0.5);
    return {Lo - Pad, Hi + Pad};
  }
  return {Lo, Hi};
}

} // namespace

std::string plotSvg(const PlotSpec &P) {
  const double L = 64, R = 16, T = 28, B = 46;
  double PW = P.Width - L - R, PH = P.Height - T - B;
  double X0 = INFINITY, X1 = -INFINITY, Y0 = INFINITY, Y1 = -INFINITY;
  size_t Count = 0;
  for (const Series &S : P.Lines)
    for (auto [X, Y] : S.Points) {
      X0 = std::min(X0, X), X1 = std::max(X1, X), Y0 = std::min(Y0, Y), Y1 = std::max(Y1, Y);
      ++Count;
    }
  if (!Count)
    X0 = 0, X1 = 1, Y0 = 0, Y1 = 1;
  auto [XLo, XHi] = range(std::min(X0, 0.0), X1);
  auto [YLo0, YHi0] = range(Y0, Y1);
  // A little room above and below the curve, then round ends from the ticks.
  double Pad = (YHi0 - YLo0) * 0.08;
  std::vector<double> XT = niceTicks(XLo, XHi), YT = niceTicks(YLo0 - Pad, YHi0 + Pad);
  double YLo = std::min(YLo0 - Pad, YT.front()), YHi = std::max(YHi0 + Pad, YT.back());
  XHi = std::max(XHi, XT.back());
  auto SX = [&](double X) { return L + (X - XLo) / (XHi - XLo) * PW; };
  auto SY = [&](double Y) { return T + PH - (Y - YLo) / (YHi - YLo) * PH; };
  std::string S = "<svg class=\"plot\" width=\"" + num(P.Width, 0) + "\" height=\"" +
                  num(P.Height, 0) + "\" viewBox=\"0 0 " + num(P.Width, 0) + " " +
                  num(P.Height, 0) + "\" role=\"img\" aria-label=\"" + escape(P.Title) + "\">\n";
  S += "<text class=\"plot-title\" x=\"" + num(L, 0) + "\" y=\"16\">" + escape(P.Title) +
       "</text>\n";
  S += "<g class=\"grid\" stroke=\"#eceff1\">";
  for (double V : YT)
    if (V >= YLo && V <= YHi)
      S += "<line x1=\"" + num(L, 1) + "\" x2=\"" + num(L + PW, 1) + "\" y1=\"" + num(SY(V), 1) +
           "\" y2=\"" + num(SY(V), 1) + "\"/>";
  S += "</g>\n<g class=\"axes\" stroke=\"#455a64\">";
  S += "<line x1=\"" + num(L, 1) + "\" y1=\"" + num(T + PH, 1) + "\" x2=\"" + num(L + PW, 1) +
       "\" y2=\"" + num(T + PH, 1) + "\"/>";
  S += "<line x1=\"" + num(L, 1) + "\" y1=\"" + num(T, 1) + "\" x2=\"" + num(L, 1) + "\" y2=\"" +
       num(T + PH, 1) + "\"/>";
  for (double V : XT)
    S += "<line x1=\"" + num(SX(V), 1) + "\" x2=\"" + num(SX(V), 1) + "\" y1=\"" + num(T + PH, 1) +
         "\" y2=\"" + num(T + PH + 5, 1) + "\"/>";
  for (double V : YT)
    if (V >= YLo && V <= YHi)
      S += "<line x1=\"" + num(L - 5, 1) + "\" x2=\"" + num(L, 1) + "\" y1=\"" + num(SY(V), 1) +
           "\" y2=\"" + num(SY(V), 1) + "\"/>";
  S += "</g>\n";
  for (double V : XT)
    S += "<text class=\"tick\" text-anchor=\"middle\" x=\"" + num(SX(V), 1) + "\" y=\"" +
         num(T + PH + 17, 1) + "\">" + tickText(V, XT) + "</text>";
  for (double V : YT)
    if (V >= YLo && V <= YHi)
      S += "<text class=\"tick\" text-anchor=\"end\" x=\"" + num(L - 8, 1) + "\" y=\"" +
           num(SY(V) + 4, 1) + "\">" + tickText(V, YT) + "</text>";
  S += "\n<text class=\"axis-title\" text-anchor=\"middle\" x=\"" + num(L + PW / 2, 1) + "\" y=\"" +
       num(P.Height - 8, 1) + "\">" + escape(P.XTitle) + "</text>\n";
  S += "<text class=\"axis-title\" text-anchor=\"middle\" transform=\"translate(14 " +
       num(T + PH / 2, 1) + ") rotate(-90)\">" + escape(P.YTitle) + "</text>\n";
  for (const Series &Ser : P.Lines) {
    if (Ser.Points.empty())
      continue;
    if (Ser.Step) {
      std::string D =
          "M" + num(SX(Ser.Points[0].first), 1) + " " + num(SY(Ser.Points[0].second), 1);
      for (size_t I = 1; I < Ser.Points.size(); ++I)
        D += " H" + num(SX(Ser.Points[I].first), 1) + " V" + num(SY(Ser.Points[I].second), 1);
      S += "<path class=\"series\" d=\"" + D + "\" fill=\"none\" stroke=\"" + Ser.Colour +
           "\" stroke-width=\"2\"><title>" + escape(Ser.Name) + "</title></path>\n";
    } else {
      S +=
          "<g class=\"series\" fill=\"" + Ser.Colour + "\"><title>" + escape(Ser.Name) + "</title>";
      for (auto [X, Y] : Ser.Points)
        S += "<circle cx=\"" + num(SX(X), 1) + "\" cy=\"" + num(SY(Y), 1) + "\" r=\"2.5\"/>";
      S += "</g>\n";
    }
  }
  if (!Count)
    S += "<text x=\"" + num(L + PW / 2, 1) + "\" y=\"" + num(T + PH / 2, 1) +
         "\" text-anchor=\"middle\">no data</text>\n";
  // The legend, in the title's row, right-aligned.
  double LX = P.Width - R;
  for (auto It = P.Lines.rbegin(); It != P.Lines.rend(); ++It) {
    LX -= 20 + 6.6 * It->Name.size();
    S += "<rect x=\"" + num(LX, 1) + "\" y=\"7\" width=\"10\" height=\"10\" fill=\"" + It->Colour +
         "\"/><text x=\"" + num(LX + 14, 1) + "\" y=\"16\">" + escape(It->Name) + "</text>\n";
  }
  S += "</svg>";
  return S;
}

} // namespace asmevo::report
