#include "lib/sim/stats.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "fsicut/core/version.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/absurd.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {
namespace {
using json = nlohmann::json;
}  // namespace

json frame_record(const Simulator& sim, const FrameStats& s) {
  json j;
  j["frame"] = s.frame;
  j["time"] = s.time;
  j["substeps"] = s.substeps;
  j["particle_substeps"] = s.particle_substeps;
  j["cfl_exceeded"] = s.cfl_exceeded;
  j["liquid_volume"] = sim.liquid_volume().value_or(0);
  j["liquid_added"] = 0.0;
  j["liquid_removed"] = 0.0;
  j["particle_volume"] = 0.0;
  j["deep_density"] = 0.0;
  j["packed_cells"] = 0.0;
  j["max_fluid_speed"] = 0.0;
  j["solver"] = {{"iterations", s.solver.iterations},
                 {"relative_residual", s.solver.relative_residual},
                 {"converged", s.solves == 0 || s.solver.converged},
                 {"met_tolerance", s.solves == 0 || s.solver.met_tolerance},
                 {"round_off_floor", s.solver.round_off_floor},
                 {"tolerance", sim.scene.coupling.tolerance},
                 {"solves", s.solves}};
  if (!s.solver.failure.empty()) j["solver"]["failure"] = s.solver.failure;
  if (s.partitioned) {
    const coupling::PartitionedReport& p = *s.partitioned;
    j["solver"]["coupling_iterations"] = p.iterations;
    j["solver"]["interface_residual"] = p.interface_residual;
    j["solver"]["interface_converged"] = p.converged;
    j["solver"]["fluid_seconds"] = p.fluid_seconds;
    j["solver"]["solid_seconds"] = p.solid_seconds;
    j["solver"]["interface_seconds"] = p.interface_seconds;
  }
  j["solids"] = json::array();
  j["obstacles"] = json::array();
  sim.add_record(j, s);
  return j;
}

std::string stats_line(json record, const std::map<std::string, double>& seconds) {
  record["seconds"] = json::object();
  for (const auto& [stage, value] : seconds) record["seconds"][stage] = value;
  return record.dump();
}

std::string stats_line(const Simulator& sim, const FrameStats& stats) {
  return stats_line(frame_record(sim, stats), stats.seconds);
}

std::optional<Real> first_liquid_volume(const std::string& stats_text) {
  const std::string first = stats_text.substr(0, stats_text.find('\n'));
  if (first.empty()) return std::nullopt;
  return liquid_books(json::parse(first, nullptr, /*allow_exceptions=*/false));
}

std::string run_record(const scene::Scene& scene, int threads) {
  json j;
  j["fsicut_version"] = VERSION;
  j["libraries"] = LIBRARY_VERSIONS;
  j["threads"] = threads;
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  j["omp_wait_policy"] = wait_policy ? wait_policy : "";
  j["scene_file"] = scene.file;
  j["scene"] = json::parse(scene::to_json(scene));
  return j.dump(2) + "\n";
}

}  // namespace fsicut::sim
