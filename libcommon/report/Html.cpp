// The report's HTML helpers (report/Html.h): escaping, numbers, kind labels, the page shell.
#include "report/Html.h"

#include "support/Format.h"

#include <cmath>

namespace asmevo::report {

std::string escape(const std::string &Text) {
  std::string S;
  S.reserve(Text.size());
  for (char C : Text) {
    switch (C) {
    case '&':
      S += "&amp;";
      break;
    case '<':
      S += "&lt;";
      break;
    case '>':
      S += "&gt;";
      break;
    case '"':
      S += "&quot;";
      break;
    case '\'':
      S += "&#39;";
      break;
    default:
      S += C;
    }
  }
  return S;
}

std::string num(double V, int D) {
  if (!std::isfinite(V))
    return "-";
  return fixed(V, D);
}

std::string figureKind(const std::string &Kind, const std::string &Backend) {
  if (Kind == "modeled" || Kind == "measured")
    return Kind;
  if (Backend == "emu")
    return "modeled";
  if (Backend == "hip")
    return "measured";
  return "unknown";
}

std::string kindLabel(const std::string &Kind, const std::string &Backend) {
  std::string K = figureKind(Kind, Backend);
  return "<span class=\"kind " + K + "\">" + K + (Backend.empty() ? "" : ", " + escape(Backend)) +
         "</span>";
}

std::string intervalLabel(double Min, double Max, uint64_t Members, uint64_t Faster) {
  if (Members < 2)
    return "";
  std::string N = std::to_string(Members);
  return " <span class=\"interval\" title=\"least and most over " + N +
         " parameter sets of the model; faster than K0 under " + std::to_string(Faster) + " of " +
         N + "\">[" + num(Min, 4) + ", " + num(Max, 4) + "]</span>";
}

std::string backendLabel(const std::string &Backend) {
  if (Backend.empty())
    return "";
  return "<span class=\"kind backend\">on " + escape(Backend) + "</span>";
}

namespace {

const char *Style = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 24px 48px; color: #212121;
  background: #fff; }
h1 { font-size: 22px; margin: 18px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px;
  border-bottom: 1px solid #cfd8dc; } h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid #cfd8dc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eceff1; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.kind { font-size: 11px; padding: 0 5px; border-radius: 8px; margin-left: 4px;
  white-space: nowrap; }
.kind.modeled { background: #fff3e0; color: #e65100; border: 1px solid #ffb74d; }
.kind.measured { background: #e3f2fd; color: #0d47a1; border: 1px solid #64b5f6; }
.kind.unknown { background: #eee; color: #555; border: 1px solid #bbb; }
.kind.backend { background: #f5f5f5; color: #37474f; border: 1px solid #cfd8dc; }
.interval { font-size: 12px; color: #5d4037; margin-left: 3px; }
.scroll { overflow: auto; max-height: 900px; border: 1px solid #eceff1; }
svg text { font: 11px ui-monospace, monospace; fill: #212121; }
svg.lineage text { paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.plot text.axis-title { font: 12px system-ui, sans-serif; }
svg.plot text.plot-title { font: bold 13px system-ui, sans-serif; }
pre.diff { font: 12px/1.35 ui-monospace, monospace; background: #fafafa; border: 1px solid #e0e0e0;
  padding: 6px; overflow-x: auto; }
pre.diff span { display: block; min-height: 1.35em; white-space: pre; }
pre.diff .add { background: #e8f5e9; color: #1b5e20; }
pre.diff .del { background: #ffebee; color: #b71c1c; }
pre.diff .hunk { color: #6a1b9a; }
.missing li { color: #b71c1c; font-family: ui-monospace, monospace; }
.missing ul { max-height: 320px; overflow: auto; }
.legend span.sw { display: inline-block; width: 10px; height: 10px; border-radius: 5px;
  margin: 0 4px 0 12px; vertical-align: middle; }
.note { color: #546e7a; } .verdict-ok { color: #2e7d32; font-weight: bold; }
.verdict-bad { color: #c62828; font-weight: bold; }
pre.diff .del.deleted { background: #ffcdd2; }
pre.diff b.deleted { font: bold 10px system-ui, sans-serif; color: #fff; background: #c62828;
  border-radius: 6px; padding: 0 5px; margin-left: 10px; }
.deleted-summary { color: #b71c1c; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; }
)";

// Measures what the browser drew: tree nodes with a non-empty box, which of them the first
// lineage's scroll box shows before any scrolling (and whether its root is among them), the
// plots' axis titles and tick labels. The result goes into a data block that is never displayed
// (a <script> of type application/json), where a test reads it from the DOM of a headless
// browser.
const char *Script = R"(
window.addEventListener('load', function () {
  var r = {tree_nodes: 0, tree_nodes_drawn: 0, first_view_nodes: 0, root_in_first_view: false,
           plots: 0, axis_titles: [], tick_labels: 0};
  var box = document.querySelector('div.scroll'), view = box && box.getBoundingClientRect();
  document.querySelectorAll('svg.lineage g.node').forEach(function (g) {
    r.tree_nodes++;
    var b = g.getBBox();
    if (b.width > 0 && b.height > 0) r.tree_nodes_drawn++;
    if (!view || !box.contains(g)) return;
    var c = g.getBoundingClientRect();
    if (c.bottom > view.top && c.top < view.bottom && c.right > view.left && c.left < view.right) {
      r.first_view_nodes++;
      if (g.getAttribute('data-id') === 'n000000') r.root_in_first_view = true;
    }
  });
  document.querySelectorAll('svg.plot').forEach(function () { r.plots++; });
  document.querySelectorAll('svg.plot text.axis-title').forEach(function (t) {
    if (t.getBBox().width > 0) r.axis_titles.push(t.textContent);
  });
  document.querySelectorAll('svg.plot text.tick').forEach(function (t) {
    if (t.getBBox().width > 0) r.tick_labels++;
  });
  document.getElementById('render-check').textContent = JSON.stringify(r);
});
)";

} // namespace

std::string page(const std::string &Title, const std::string &Body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         escape(Title) + "</title>\n<style>" + Style + "</style>\n</head>\n<body>\n<h1>" +
         escape(Title) + "</h1>\n" + Body +
         "\n<script type=\"application/json\" id=\"render-check\"></script>\n<script>" + Script +
         "</script>\n</body>\n</html>\n";
}

} // namespace asmevo::report
