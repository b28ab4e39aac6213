#include "lib/sim/cost.hpp"

#include <cmath>
#include <cstdio>

namespace fsicut::sim {
namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 0.01 ? "%.2g s" : "%.3g s", s);
  return text;
}

}  // namespace

SubstepCostTerm grid_cost(const scene::Scene& scene, double per_cell) {
  const auto& r = scene.grid.resolution;
  const double cells = double(r.x()) * r.y() * r.z();
  return {"grid", "/grid/resolution", std::to_string(static_cast<long long>(cells)) + " cells", per_cell * cells};
}

SubstepCost total(std::vector<SubstepCostTerm> terms) {
  SubstepCost cost;
  cost.terms = std::move(terms);
  for (const SubstepCostTerm& t : cost.terms) cost.seconds += t.seconds;
  return cost;
}

std::string describe(const SubstepCost& cost) {
  std::string text = "time estimate: about " + seconds_text(cost.seconds) + " per substep (2 idle cores)\n";
  for (const SubstepCostTerm& t : cost.terms) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-20s %26s %10s  %s\n", t.what.c_str(), t.count.c_str(),
                  seconds_text(t.seconds).c_str(), t.pointer.c_str());
    text += line;
  }
  return text;
}

std::vector<std::string> slow_substep_warnings(const SubstepCost& cost) {
  std::vector<std::string> out;
  for (const SubstepCostTerm& t : cost.terms) {
    if (t.seconds <= SLOW_SUBSTEP_SECONDS) continue;
    out.push_back(t.pointer + ": " + t.what + " (" + t.count + ") is estimated at about " + seconds_text(t.seconds) +
                  " per substep, more than " + seconds_text(SLOW_SUBSTEP_SECONDS) +
                  (t.what == "grid" ? ": use a coarser /grid/resolution"
                                    : ": use a coarser mesh (a larger max_tet_volume, fewer subdivisions or cells), "
                                      "linear elements, or \"model\": \"reduced\""));
  }
  return out;
}

}  // namespace fsicut::sim
