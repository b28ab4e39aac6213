#include "lib/sim/stats.hpp"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "fsicut/core/version.hpp"
#include "lib/fluid/packing.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/eulerian_run.hpp"

namespace fsicut::sim {
namespace {
using json = nlohmann::json;
json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }
}  // namespace

json frame_record(const SimState& state, const FrameStats& s) {
  json j;
  j["frame"] = s.frame;
  j["time"] = s.time;
  j["substeps"] = s.substeps;
  j["cfl_exceeded"] = s.cfl_exceeded;
  j["liquid_volume"] = liquid_volume(state);
  const fluid::Packing packing = state.liquid ? fluid::packing(*state.liquid) : fluid::Packing{};
  j["particle_volume"] = packing.particle_volume;
  j["deep_density"] = packing.deep_density;
  j["packed_cells"] = packing.packed_cells;
  j["max_fluid_speed"] = state.liquid ? fluid::max_speed(*state.liquid) : 0.0;
  j["solver"] = {{"iterations", s.solver.iterations},
                 {"relative_residual", s.solver.relative_residual},
                 {"converged", s.solves == 0 || s.solver.converged},
                 {"met_tolerance", s.solves == 0 || s.solver.met_tolerance},
                 {"round_off_floor", s.solver.round_off_floor},
                 {"tolerance", state.scene.coupling.tolerance},
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
  const FluidLoads loads = s.loads.mean(state.solids.size(), state.scene.obstacles.size());
  j["solids"] = json::array();
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    const solid::Body& b = state.solids[k];
    const solid::BodyStats st = solid::stats(b);
    json solid = {{"name", b.name},
                  {"centroid", vec(st.centroid)},
                  {"volume", st.volume},
                  {"mean_velocity", vec(st.mean_velocity)},
                  {"kinetic_energy", st.kinetic_energy},
                  {"elastic_energy", st.elastic_energy},
                  {"linear_momentum", vec(st.linear_momentum)},
                  {"angular_momentum", vec(st.angular_momentum)},
                  {"max_strain", st.max_strain},
                  {"inverted_elements", inverted_elements(b)},
                  {"fluid_force", vec(loads.solids[k].force)},
                  {"fluid_torque", vec(loads.solids[k].torque)}};
    if (is_reduced(state, k)) {
      const solid::ReducedBody& r = *state.reduced[k];
      solid["modes"] = r.basis.modes();
      solid["modal_energy"] = solid::modal_energy(r.basis, r.state);
    }
    j["solids"].push_back(solid);
  }
  if (state.eulerian) add_eulerian_record(state, j);
  j["obstacles"] = json::array();
  for (std::size_t k = 0; k < loads.obstacles.size(); ++k)
    j["obstacles"].push_back({{"index", k},
                              {"fluid_force", vec(loads.obstacles[k].force)},
                              {"fluid_torque", vec(loads.obstacles[k].torque)}});
  return j;
}

std::string stats_line(json record, const std::map<std::string, double>& seconds) {
  record["seconds"] = json::object();
  for (const auto& [stage, value] : seconds) record["seconds"][stage] = value;
  return record.dump();
}

std::string stats_line(const SimState& state, const FrameStats& stats) {
  return stats_line(frame_record(state, stats), stats.seconds);
}

Index inverted_elements(const solid::Body& body) {
  Index count = 0;
  // A quadratic element counts once when any of its 8 sub-tets is inverted.
  const int per_element = body.quadratic() ? 8 : 1;
  int seen = 0;
  bool inverted = false;
  mesh::for_each_linear_tet(body.mesh, [&](int i, int j, int k, int l) {
    const Vec3 x0 = body.x.col(i);
    solid::Mat3 edges;
    edges << body.x.col(j) - x0, body.x.col(k) - x0, body.x.col(l) - x0;
    // NaN counts too: a NaN element is no more physical than an inverted one.
    if (!(edges.determinant() > 0)) inverted = true;
    if (++seen == per_element) {
      count += inverted;
      seen = 0;
      inverted = false;
    }
  });
  return count;
}

std::optional<Real> first_liquid_volume(const std::string& stats_text) {
  const std::string first = stats_text.substr(0, stats_text.find('\n'));
  if (first.empty()) return std::nullopt;
  const json j = json::parse(first, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("liquid_volume") || !j["liquid_volume"].is_number()) return std::nullopt;
  return j["liquid_volume"].get<Real>();
}

std::string run_record(const SimState& state, int threads) {
  json j;
  j["fsicut_version"] = VERSION;
  j["libraries"] = LIBRARY_VERSIONS;
  j["threads"] = threads;
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  j["omp_wait_policy"] = wait_policy ? wait_policy : "";
  j["scene_file"] = state.scene.file;
  j["scene"] = json::parse(scene::to_json(state.scene));
  return j.dump(2) + "\n";
}

}  // namespace fsicut::sim
