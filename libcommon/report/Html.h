// The HTML of the report: escaping, number formatting, the kind label every figure carries
// ("modeled" on emu, "measured" on hip), and the page shell with its inline style sheet and the
// small inline script that measures the rendered SVG into a data block that is never shown
// (<script type="application/json" id="render-check">, which a test reads through a headless
// browser). Nothing in the page refers outside it.
#pragma once

#include <cstdint>
#include <string>

namespace asmevo::report {

// Text for HTML element content and attribute values (& < > " ').
std::string escape(const std::string &Text);

// V with D decimals ("1.2346"); "-" for a value that is not finite.
std::string num(double V, int D);

// "modeled" or "measured" for a figure from Backend (Kind, when given, wins: it is what the
// tool that produced the figure said).
std::string figureKind(const std::string &Kind, const std::string &Backend);

// The label after a figure: <span class="kind modeled">modeled, emu</span>.
std::string kindLabel(const std::string &Kind, const std::string &Backend);
// A modeled speedup's interval over an ensemble of Members parameter sets, shown beside the
// speedup: " <span class="interval" ...>[1.0100, 1.0800]</span>" ("" for fewer than 2 sets).
std::string intervalLabel(double Min, double Max, uint64_t Members, uint64_t Faster);

// The label after a verdict, which is not a figure and is never modeled: the backend it ran on
// (<span class="kind backend">on emu</span>); empty when unknown.
std::string backendLabel(const std::string &Backend);

// The whole page: Title in <title> and <h1>, Body after it.
std::string page(const std::string &Title, const std::string &Body);

} // namespace asmevo::report
