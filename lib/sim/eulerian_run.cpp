#include "lib/sim/eulerian_run.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "lib/checkpoint/format.hpp"
#include "lib/core/error.hpp"
#include "lib/eulerian/measure.hpp"
#include "lib/eulerian/time_step.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/sim/solid_mesh.hpp"

namespace fsicut::sim {
namespace {

using nlohmann::json;

// Cells of exact distance kept around a mesh solid's surface when its
// material shape is sampled: beyond the band of valid nodes (the step's
// band) plus a margin, the clamped distance only has to say "outside".
constexpr int SHAPE_MARGIN_CELLS = 3;

json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }

// The boundary of `mesh` with only the vertices it uses, renumbered in order
// of first use.
EulerianSurface boundary_surface(const std::string& name, const mesh::TetMesh& mesh) {
  EulerianSurface s;
  s.name = name;
  std::unordered_map<int, int> index;
  std::vector<int> used;
  for (const mesh::Triangle& t : mesh.boundary) {
    mesh::Triangle r;
    for (int k = 0; k < 3; ++k) {
      const auto [it, added] = index.emplace(t[k], static_cast<int>(used.size()));
      if (added) used.push_back(t[k]);
      r[k] = it->second;
    }
    s.triangles.push_back(r);
  }
  s.vertices.resize(3, static_cast<Index>(used.size()));
  for (std::size_t i = 0; i < used.size(); ++i) s.vertices.col(static_cast<Index>(i)) = mesh.rest.col(used[i]);
  return s;
}

void check_inside_grid(const scene::Scene& scene, const scene::SolidDesc& desc, const Points& x) {
  const Vec3 lo = x.rowwise().minCoeff(), hi = x.rowwise().maxCoeff();
  const Vec3 glo = scene.grid.origin, ghi = scene.grid.max();
  for (int d = 0; d < 3; ++d)
    if (lo[d] < glo[d] || hi[d] > ghi[d]) {
      std::ostringstream s;
      s << "solid \"" << desc.name << "\" spans [" << lo.transpose() << "] - [" << hi.transpose()
        << "], outside the grid [" << glo.transpose() << "] - [" << ghi.transpose() << "] along axis " << d;
      throw SceneError(scene.file, desc.pointer + "/mesh", s.str());
    }
}

// The material shape of a solid whose rest surface is `surface`.
eulerian::MaterialShape material_shape(const grid::MacGrid& grid, const scene::SolidDesc& desc,
                                       const EulerianSurface& surface, int band) {
  if (desc.mesh.type == scene::MeshDesc::Type::sphere) {
    // An icosphere's vertices lie on the sphere, symmetric about its centre.
    const Vec3 center = surface.vertices.rowwise().mean();
    return eulerian::sample_material_shape(
        grid, levelset::sphere_solid(center, desc.mesh.radius * desc.mesh.transform.scale));
  }
  mesh::SurfaceMesh m{surface.vertices, surface.triangles};
  return eulerian::sample_material_shape(grid,
                                         levelset::mesh_solid(m, false, (band + SHAPE_MARGIN_CELLS) * grid.dx));
}

eulerian::EulerianSolid make_solid(const scene::Scene& scene, const scene::SolidDesc& desc, const grid::MacGrid& grid,
                                   int band, EulerianSurface& surface) {
  surface = boundary_surface(desc.name, build_solid_mesh(desc.mesh, scene.file));
  check_inside_grid(scene, desc, surface.vertices);
  const eulerian::MaterialShape shape = material_shape(grid, desc, surface, band);
  const Vec3 c = surface.vertices.rowwise().mean();
  const Real scale = desc.initial_scale;
  eulerian::EulerianSolid s = eulerian::make_solid(
      grid, shape, eulerian::lame_from_young(desc.youngs_modulus, desc.poisson_ratio), desc.density,
      [&](const Vec3& x) { return Vec3(c + (x - c) / scale); }, band);
  s.damping = {desc.damping.mass, desc.damping.stiffness};
  s.contact_stiffness = desc.contact.stiffness;
  s.contact_friction = desc.contact.friction;
  if (desc.plasticity) s.plastic = eulerian::make_plastic_strain(shape, {desc.plasticity->yield, desc.plasticity->flow});
  for (Index n = 0; n < eulerian::node_count(grid); ++n)
    if (s.valid[n]) s.v.segment<3>(3 * n) = desc.velocity;
  for (Index i = 0; i < surface.vertices.cols(); ++i)
    surface.vertices.col(i) = c + scale * (surface.vertices.col(i) - c);
  return s;
}

eulerian::Smoke make_smoke(const scene::Scene& scene, const grid::MacGrid& grid) {
  eulerian::Smoke smoke = eulerian::make_smoke(grid, scene.fluid.density);
  smoke.buoyancy = scene.fluid.smoke.buoyancy;
  smoke.vorticity_confinement = scene.fluid.smoke.vorticity_confinement;
  for (const scene::SmokeSource& s : scene.fluid.smoke.sources)
    smoke.sources.push_back({s.min, s.max, s.density, s.inflow, s.velocity, s.from, s.until});
  eulerian::apply_sources(grid, smoke, 0);
  return smoke;
}

eulerian::WorldSettings world_settings(const scene::Scene& scene) {
  const scene::EulerianCoupling& e = scene.coupling.eulerian;
  eulerian::WorldSettings s;
  s.gravity = scene.gravity;
  s.velocity.tolerance = e.velocity_tolerance;
  s.velocity.max_iterations = scene.coupling.max_iterations;
  s.velocity.integration = e.integration == scene::EulerianCoupling::Integration::explicit_euler
                               ? eulerian::Integration::explicit_euler
                           : e.integration == scene::EulerianCoupling::Integration::newmark
                               ? eulerian::Integration::newmark
                               : eulerian::Integration::semi_implicit;
  s.projection.tolerance = e.pressure_tolerance;
  s.projection.max_iterations = scene.coupling.max_iterations;
  s.projection.correction_tolerance = e.velocity_tolerance;
  if (e.solver == scene::EulerianCoupling::Solver::minres) {
    s.projection.solver = eulerian::ConstraintSolver::kkt;
    s.projection.kkt_tolerance = e.velocity_tolerance;
    s.projection.kkt_max_iterations = scene.coupling.max_iterations;
  }
  // The loader allows compressible solids only when all of them are and
  // there is no smoke (scene/read_eulerian.hpp).
  s.incompressible = scene.fluid.kind == scene::Fluid::Kind::smoke ||
                     std::all_of(scene.solids.begin(), scene.solids.end(),
                                 [](const scene::SolidDesc& d) { return d.incompressible; });
  return s;
}

}  // namespace

EulerianState build_eulerian(const scene::Scene& scene) {
  EulerianState e;
  const grid::MacGrid grid = make_grid(scene.grid);
  e.settings = world_settings(scene);
  e.world = eulerian::make_world(grid);
  for (const scene::SolidDesc& desc : scene.solids) {
    EulerianSurface surface;
    e.world.solids.push_back(make_solid(scene, desc, grid, e.settings.band, surface));
    e.surfaces.push_back(std::move(surface));
  }
  if (scene.fluid.kind == scene::Fluid::Kind::smoke) e.world.smoke = make_smoke(scene, grid);
  return e;
}

StepReport step_eulerian(SimState& state, Real dt, StageTimes& times) {
  EulerianState& e = *state.eulerian;
  std::vector<eulerian::NodeField> before;
  for (const eulerian::EulerianSolid& s : e.world.solids) before.push_back(s.v);
  eulerian::WorldReport r;
  {
    ScopedStage t(times, STAGE_EULERIAN);
    e.world.time = state.time;
    r = eulerian::step(e.world, dt, e.settings);
  }
  {
    ScopedStage t(times, STAGE_ADVECTION);
    for (std::size_t l = 0; l < e.surfaces.size(); ++l)
      eulerian::advect_surface(e.world.grid, before[l], e.world.solids[l].v, dt, e.surfaces[l].vertices);
  }
  if (e.tally.frame != state.frame) {
    e.tally = EulerianTally{};
    e.tally.frame = state.frame;
  }
  EulerianTally& t = e.tally;
  ++t.substeps;
  t.velocity_iterations += r.velocity.iterations;
  t.pressure_iterations += r.pressure.iterations;
  t.correction_iterations += r.correction.iterations;
  t.divergence = std::max(t.divergence, r.divergence);
  t.contacts += r.contact.contacts;
  t.seconds.assemble += r.seconds.assemble;
  t.seconds.velocity += r.seconds.velocity;
  t.seconds.pressure += r.seconds.pressure;
  t.seconds.collision += r.seconds.collision;
  t.seconds.advection += r.seconds.advection;
  t.smallest_dt = t.smallest_dt > 0 ? std::min(t.smallest_dt, dt) : dt;
  t.unknowns = r.unknowns;
  t.constraints = r.constraints;
  StepReport report;
  report.worst_solve = r.velocity;
  report.solve_count = 1;
  if (e.settings.incompressible) {
    report.worst_solve = linsolve::worst(linsolve::worst(r.velocity, r.pressure), r.correction);
    report.solve_count = 3;
  }
  state.time += dt;
  return report;
}

Real eulerian_cfl(const SimState& state) {
  const Real far = state.scene.time.cfl, near = state.scene.coupling.eulerian.contact_cfl;
  return near > 0 ? eulerian::contact_cfl(state.eulerian->world, near, far) : far;
}

void add_eulerian_record(const SimState& state, json& record) {
  const EulerianState& e = *state.eulerian;
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
  if (e.world.smoke) {
    const eulerian::NodeField& v = e.world.smoke->velocity;
    Real speed = 0;
    for (Index k = 0; k + 2 < v.size(); k += 3) speed = std::max(speed, v.segment<3>(k).norm());
    record["max_fluid_speed"] = speed;
  }
  record["solver"]["tolerance"] = state.scene.coupling.eulerian.pressure_tolerance;
  const bool current = e.tally.frame == state.frame - 1;
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

namespace {

std::vector<double> values(const eulerian::Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

// F_p of a plastic solid, 9 values per material sample; empty for an elastic one.
std::vector<double> plastic_values(const eulerian::EulerianSolid& s) {
  std::vector<double> out;
  if (!s.plastic) return out;
  for (const eulerian::Mat3& Fp : s.plastic->samples) out.insert(out.end(), Fp.data(), Fp.data() + 9);
  return out;
}

void restore_plastic(const std::vector<double>& from, eulerian::EulerianSolid& s, const std::string& where,
                     const std::string& name) {
  const std::size_t expected = s.plastic ? 9 * s.plastic->samples.size() : 0;
  if (from.size() != expected)
    checkpoint::throw_mismatch(where, name + "'s plastic strain has " + std::to_string(from.size()) +
                                          " values in the checkpoint, " + std::to_string(expected) + " in the scene");
  for (std::size_t n = 0; 9 * n < from.size(); ++n)
    s.plastic->samples[n] = Eigen::Map<const eulerian::Mat3>(from.data() + 9 * n);
}

// `to` keeps its size, which the scene fixed; a record of another size does not fit.
void restore_values(const std::vector<double>& from, eulerian::Vector& to, const std::string& where,
                    const std::string& name) {
  if (static_cast<Index>(from.size()) != to.size())
    checkpoint::throw_mismatch(where, name + " has " + std::to_string(from.size()) + " values in the checkpoint, " +
                                          std::to_string(to.size()) + " in the scene");
  to = Eigen::Map<const eulerian::Vector>(from.data(), to.size());
}

}  // namespace

checkpoint::EulerianRecord eulerian_record(const EulerianState& e) {
  checkpoint::EulerianRecord r;
  r.velocity = values(e.world.velocity);
  r.pressure = values(e.world.pressure);
  for (const eulerian::EulerianSolid& s : e.world.solids)
    r.solids.push_back({values(s.u), values(s.v), std::vector<std::uint8_t>(s.valid.begin(), s.valid.end()),
                        values(s.pressure), plastic_values(s)});
  if (e.world.smoke) {
    r.smoke = true;
    const grid::Array3<Real>& d = e.world.smoke->density;
    r.smoke_density.assign(&d(0, 0, 0), &d(0, 0, 0) + d.count());
    r.smoke_velocity = values(e.world.smoke->velocity);
  }
  for (const EulerianSurface& s : e.surfaces) r.surfaces.push_back(s.vertices);
  const EulerianTally& t = e.tally;
  r.tally_frame = t.frame;
  r.tally_substeps = t.substeps;
  r.velocity_iterations = t.velocity_iterations;
  r.pressure_iterations = t.pressure_iterations;
  r.correction_iterations = t.correction_iterations;
  r.divergence = t.divergence;
  r.unknowns = t.unknowns;
  r.constraints = t.constraints;
  r.contacts = t.contacts;
  return r;
}

void restore_eulerian(const checkpoint::EulerianRecord& r, const std::string& where, EulerianState& e) {
  eulerian::World& w = e.world;
  if (r.solids.size() != w.solids.size() || r.surfaces.size() != e.surfaces.size() || r.smoke != w.smoke.has_value())
    checkpoint::throw_mismatch(where, std::to_string(r.solids.size()) + " Eulerian solids" +
                                          (r.smoke ? " with smoke" : "") + " in the checkpoint, " +
                                          std::to_string(w.solids.size()) + (w.smoke ? " with smoke" : "") +
                                          " in the scene");
  restore_values(r.velocity, w.velocity, where, "the velocity");
  w.pressure = Eigen::Map<const eulerian::Vector>(r.pressure.data(), static_cast<Index>(r.pressure.size()));
  for (std::size_t l = 0; l < w.solids.size(); ++l) {
    eulerian::EulerianSolid& s = w.solids[l];
    const std::string name = "solid \"" + e.surfaces[l].name + "\"";
    restore_values(r.solids[l].u, s.u, where, name + "'s displacement");
    restore_values(r.solids[l].v, s.v, where, name + "'s velocity");
    if (r.solids[l].valid.size() != s.valid.size())
      checkpoint::throw_mismatch(where, name + "'s valid nodes do not fit the scene's grid");
    s.valid.assign(r.solids[l].valid.begin(), r.solids[l].valid.end());
    s.pressure = Eigen::Map<const eulerian::Vector>(r.solids[l].pressure.data(),
                                                    static_cast<Index>(r.solids[l].pressure.size()));
    restore_plastic(r.solids[l].plastic, s, where, name);
    if (r.surfaces[l].cols() != e.surfaces[l].vertices.cols())
      checkpoint::throw_mismatch(where, name + "'s surface has " + std::to_string(r.surfaces[l].cols()) +
                                            " vertices in the checkpoint, " +
                                            std::to_string(e.surfaces[l].vertices.cols()) + " in the scene");
    e.surfaces[l].vertices = r.surfaces[l];
  }
  if (w.smoke) {
    grid::Array3<Real>& d = w.smoke->density;
    if (static_cast<Index>(r.smoke_density.size()) != d.count())
      checkpoint::throw_mismatch(where, "the smoke density does not fit the scene's grid");
    std::copy(r.smoke_density.begin(), r.smoke_density.end(), &d(0, 0, 0));
    restore_values(r.smoke_velocity, w.smoke->velocity, where, "the smoke velocity");
  }
  e.tally = EulerianTally{};
  EulerianTally& t = e.tally;
  t.frame = r.tally_frame;
  t.substeps = r.tally_substeps;
  t.velocity_iterations = r.velocity_iterations;
  t.pressure_iterations = r.pressure_iterations;
  t.correction_iterations = r.correction_iterations;
  t.divergence = r.divergence;
  t.unknowns = r.unknowns;
  t.constraints = r.constraints;
  t.contacts = r.contacts;
}

std::string eulerian_summary(const SimState& state) {
  const EulerianState& e = *state.eulerian;
  std::ostringstream out;
  if (e.world.smoke)
    out << "fluid     smoke, density " << e.world.smoke->fluid_density << " kg/m^3, " << e.world.smoke->sources.size()
        << " sources\n";
  else
    out << "fluid     none (solids in void)\n";
  for (std::size_t l = 0; l < e.world.solids.size(); ++l) {
    const eulerian::SolidMeasure m = eulerian::measure_solid(e.world.solids[l]);
    out << "eulerian  " << e.surfaces[l].name << ": mass " << m.mass << " kg, volume " << m.report.volume
        << " m^3 on the grid, output surface " << e.surfaces[l].vertices.cols() << " vertices, "
        << e.surfaces[l].triangles.size() << " triangles\n";
  }
  return out.str();
}

}  // namespace fsicut::sim
