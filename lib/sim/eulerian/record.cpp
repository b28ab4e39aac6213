// What a frame of the Eulerian simulator reports: its stats keys, its output
// files, its absurd results and its cost (sim/eulerian/simulator.hpp).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "lib/eulerian/measure.hpp"
#include "lib/io/frame.hpp"
#include "lib/sim/eulerian/simulator.hpp"
#include "lib/sim/from_scene.hpp"

namespace fsicut::sim {
namespace {

using nlohmann::json;

json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }

// The smoke's fastest node [m/s]; 0 without smoke.
Real smoke_speed(const eulerian::World& world) {
  if (!world.smoke) return 0;
  const eulerian::NodeField& v = world.smoke->velocity;
  Real speed = 0;
  for (Index k = 0; k + 2 < v.size(); k += 3) speed = std::max(speed, v.segment<3>(k).norm());
  return speed;
}

}  // namespace

void EulerianSimulator::add_record(json& record, const FrameStats&) const {
  const EulerianSimulator& e = *this;
  for (std::size_t l = 0; l < e.world.solids.size(); ++l) {
    const eulerian::SolidMeasure m = eulerian::measure_solid(e.world.solids[l]);
    record["solids"].push_back({{"name", e.surfaces[l].name},
                                {"representation", "eulerian"},
                                {"centroid", vec(m.centroid)},
                                {"volume", m.report.volume},
                                {"mean_velocity", vec(m.mean_velocity)},
                                {"kinetic_energy", m.report.kinetic_energy},
                                {"elastic_energy", m.report.elastic_energy},
                                {"max_strain", m.report.max_strain},
                                {"inverted_points", m.report.inverted},
                                {"drift", m.report.drift}});
    if (e.world.solids[l].plastic)
      record["solids"].back()["plastic_strain"] =
          eulerian::max_plastic_strain(*e.world.solids[l].plastic, e.world.solids[l].shape);
  }
  if (e.world.smoke) record["max_fluid_speed"] = smoke_speed(e.world);
  record["solver"]["tolerance"] = scene.coupling.eulerian.pressure_tolerance;
  const bool current = e.tally.frame == frame - 1;
  const EulerianTally t = current ? e.tally : EulerianTally{};
  record["eulerian"] = {{"substeps", t.substeps},
                        {"velocity_iterations", t.velocity_iterations},
                        {"pressure_iterations", t.pressure_iterations},
                        {"correction_iterations", t.correction_iterations},
                        {"divergence", t.divergence},
                        {"unknowns", t.unknowns},
                        {"constraints", t.constraints},
                        {"contacts", t.contacts},
                        {"smallest_dt", t.smallest_dt},
                        {"seconds",
                         {{"assemble", t.seconds.assemble},
                          {"velocity_solves", t.seconds.velocity},
                          {"pressure_solve", t.seconds.pressure},
                          {"collision", t.seconds.collision},
                          {"advection", t.seconds.advection}}},
                        {"smoke_amount", e.world.smoke ? eulerian::smoke_amount(e.world.grid, e.world.smoke->density)
                                                       : 0.0}};
}

FrameOutput EulerianSimulator::capture_frame() const {
  FrameOutput out;
  out.frame = frame;
  out.time = time;
  out.up = up_axis(scene);
  if (scene.output.solids)
    for (const EulerianSurface& s : surfaces)
      out.solids.push_back(SolidOutput{s.name, io::to_output_frame(s.vertices, out.up), s.triangles});
  if (world.smoke) out.smoke = SmokeOutput{world.grid, world.smoke->density};
  return out;
}

std::vector<std::string> EulerianSimulator::frame_file_names(int f) const {
  std::vector<std::string> names;
  if (scene.output.solids)
    for (const EulerianSurface& s : surfaces) names.push_back(numbered(s.name, f, ".obj"));
  if (world.smoke) names.push_back(numbered("smoke", f, ".vdb"));
  return names;
}

std::vector<Absurdity> EulerianSimulator::absurdities(const LiquidVolumes&) const {
  std::vector<Absurdity> out;
  const Real speed_bound = velocity_bound(scene);
  for (std::size_t l = 0; l < world.solids.size(); ++l) {
    const eulerian::EulerianSolid& solid = world.solids[l];
    if (!solid.u.allFinite() || !solid.v.allFinite()) {
      out.push_back({"not finite",
                     solid_prefix(frame, surfaces[l].name) + "has a displacement or velocity that is not finite"});
      continue;
    }
    const eulerian::SolidMeasure m = eulerian::measure_solid(solid);
    check_solid(frame, {surfaces[l].name, m.report.volume, solid.material_volume, m.report.kinetic_energy, m.mass},
                "no material left on the grid", speed_bound, out);
  }
  if (world.smoke) check_fluid_speed(frame, "the smoke", smoke_speed(world), speed_bound, out);
  return out;
}

SubstepCost EulerianSimulator::estimate_substep() const { return total({grid_cost(scene, EULERIAN_CELL_SECONDS)}); }

}  // namespace fsicut::sim
