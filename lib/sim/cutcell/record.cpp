// What a frame of the cut-cell simulator reports: its stats keys, its output
// files, its absurd results and its cost (sim/cutcell/simulator.hpp).
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "lib/fluid/packing.hpp"
#include "lib/io/frame.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/from_scene.hpp"

namespace fsicut::sim {
namespace {

using json = nlohmann::json;
json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }

}  // namespace

void CutCellSimulator::add_record(json& j, const FrameStats& s) const {
  if (liquid) {
    const fluid::Packing packing = fluid::packing(*liquid);
    j["particle_volume"] = packing.particle_volume;
    j["deep_density"] = packing.deep_density;
    j["packed_cells"] = packing.packed_cells;
    j["max_fluid_speed"] = fluid::max_speed(*liquid);
    j["liquid_added"] = flows.added;
    j["liquid_removed"] = flows.removed;
  }
  const FluidLoads loads = s.loads.mean(solids.size(), scene.obstacles.size());
  for (std::size_t k = 0; k < solids.size(); ++k) {
    const solid::Body& b = solids[k];
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
    if (is_reduced(k)) {
      const solid::ReducedBody& r = *reduced[k];
      solid["modes"] = r.basis.modes();
      solid["modal_energy"] = solid::modal_energy(r.basis, r.state);
    }
    j["solids"].push_back(solid);
  }
  for (std::size_t k = 0; k < loads.obstacles.size(); ++k)
    j["obstacles"].push_back({{"index", k},
                              {"fluid_force", vec(loads.obstacles[k].force)},
                              {"fluid_torque", vec(loads.obstacles[k].torque)}});
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

std::vector<InvertedSolid> CutCellSimulator::inverted_solids() const {
  std::vector<InvertedSolid> out;
  for (const solid::Body& b : solids)
    if (const Index n = inverted_elements(b); n > 0) out.push_back({b.name, n});
  return out;
}

FrameOutput CutCellSimulator::capture_frame() const {
  const scene::Output& options = scene.output;
  FrameOutput out;
  out.frame = frame;
  out.time = time;
  out.up = up_axis(scene);
  if (liquid && options.liquid) {
    LiquidOutput& l = out.liquid.emplace();
    l.particles = io::to_output_frame(liquid->particles, out.up);
    l.particle_radius = liquid->particle_radius;
    l.voxel_size = vdb_voxel_size(scene);
    l.with_particles = options.liquid_particles;
    if (options.liquid_velocity) {
      l.velocity_grid = liquid->grid;
      l.velocity = liquid->velocity;
    }
  }
  if (options.solids)
    for (const solid::Body& b : solids)
      out.solids.push_back(SolidOutput{b.name, io::to_output_frame(b.x, out.up), b.mesh.boundary});
  return out;
}

std::vector<std::string> CutCellSimulator::frame_file_names(int f) const {
  std::vector<std::string> names;
  if (liquid && scene.output.liquid) names.push_back(numbered("liquid", f, ".vdb"));
  if (scene.output.solids)
    for (const solid::Body& b : solids) names.push_back(numbered(b.name, f, ".obj"));
  return names;
}

std::vector<Absurdity> CutCellSimulator::absurdities(const LiquidVolumes& volumes) const {
  std::vector<Absurdity> out;
  const Real speed_bound = velocity_bound(scene);
  for (const solid::Body& body : solids) {
    if (!body.x.allFinite() || !body.v.allFinite()) {
      out.push_back({"not finite", solid_prefix(frame, body.name) + "has a position or velocity that is not finite"});
      continue;
    }
    const solid::BodyStats st = solid::stats(body);
    const Real rest = std::accumulate(body.rest_volume.begin(), body.rest_volume.end(), Real(0));
    check_solid(frame, {body.name, st.volume, rest, st.kinetic_energy, body.total_mass()}, "turned inside out",
                speed_bound, out);
  }
  if (liquid)
    check_liquid(frame, volumes.now ? *volumes.now : *liquid_volume(), volumes, fluid::max_speed(*liquid), speed_bound,
                 out);
  return out;
}

SubstepCost CutCellSimulator::estimate_substep() const {
  std::vector<SubstepCostTerm> terms = {grid_cost(scene, CELL_SECONDS)};
  for (std::size_t b = 0; b < solids.size(); ++b) {
    const solid::Body& body = solids[b];
    const std::string pointer = "/solids/" + std::to_string(b);
    if (is_reduced(b)) {
      const double n = reduced[b]->basis.modes() + 6;
      terms.push_back({"solid \"" + body.name + "\"", pointer + "/modes",
                       std::to_string(static_cast<long long>(n)) + " reduced unknowns", MODE_SECONDS * n * n * n});
      continue;
    }
    const double dofs = 3.0 * body.dofs.num_free_nodes();
    const double c = body.quadratic() ? QUADRATIC_DOF_SECONDS : LINEAR_DOF_SECONDS;
    terms.push_back({"solid \"" + body.name + "\"", pointer + "/mesh",
                     std::to_string(static_cast<long long>(dofs)) + " dofs (" +
                         (body.quadratic() ? "quadratic" : "linear") + ")",
                     c * std::pow(dofs, 1.5)});
  }
  return total(std::move(terms));
}

}  // namespace fsicut::sim
