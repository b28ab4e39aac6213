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

SubstepCost estimate_substep(const SimState& state) {
  SubstepCost cost;
  const auto& r = state.scene.grid.resolution;
  const double cells = double(r.x()) * r.y() * r.z();
  const double per_cell = state.eulerian ? EULERIAN_CELL_SECONDS : CELL_SECONDS;
  cost.terms.push_back({"grid", "/grid/resolution", std::to_string(static_cast<long long>(cells)) + " cells",
                        per_cell * cells});
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    const std::string pointer = "/solids/" + std::to_string(b);
    if (is_reduced(state, b)) {
      const double n = state.reduced[b]->basis.modes() + 6;
      cost.terms.push_back({"solid \"" + body.name + "\"", pointer + "/modes",
                            std::to_string(static_cast<long long>(n)) + " reduced unknowns", MODE_SECONDS * n * n * n});
      continue;
    }
    const double dofs = 3.0 * body.dofs.num_free_nodes();
    const double c = body.quadratic() ? QUADRATIC_DOF_SECONDS : LINEAR_DOF_SECONDS;
    cost.terms.push_back({"solid \"" + body.name + "\"", pointer + "/mesh",
                          std::to_string(static_cast<long long>(dofs)) + " dofs (" +
                              (body.quadratic() ? "quadratic" : "linear") + ")",
                          c * std::pow(dofs, 1.5)});
  }
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
