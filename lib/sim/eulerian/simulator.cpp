#include "lib/sim/eulerian/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "lib/core/error.hpp"
#include "lib/eulerian/measure.hpp"
#include "lib/eulerian/time_step.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/mesh/check.hpp"
#include "lib/scene/names.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/sim/solid_mesh.hpp"

namespace fsicut::sim {
namespace {

// Cells of exact distance kept around a mesh solid's surface when its
// material shape is sampled: beyond the band of valid nodes (the step's
// band) plus a margin, the clamped distance only has to say "outside".
constexpr int SHAPE_MARGIN_CELLS = 3;

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

// The least part of its mesh's volume a solid's material may cover on the grid
// (material_volume against the tet mesh's volume). Measured on icospheres in
// cells of 0.0625 m: radius 0.2 m 0.96, 0.12 m 0.88, 0.09 m 0.81, 0.06 m
// (a cell) 0.60, 0.02 m 0.15 (which grew to 6.4 times its rest volume in its
// first frame); the shipped Eulerian scenes 0.94-1.00. Below half, the grid
// does not hold the solid, and its first steps blow it up.
constexpr Real MIN_HELD_FRACTION = 0.5;

void check_represented(const scene::Scene& scene, const scene::SolidDesc& desc, Real held, Real enclosed, Real dx) {
  if (held >= MIN_HELD_FRACTION * enclosed) return;
  std::ostringstream s;
  s << "solid \"" << desc.name << "\" is too small for the grid: its material covers " << held
    << " m^3 of the grid where its mesh encloses " << enclosed << " m^3 (" << std::lround(100 * held / enclosed)
    << " %, at least " << std::lround(100 * MIN_HELD_FRACTION)
    << " % needed); make it a few cells across (cell_size " << dx << " m) or the cells smaller";
  throw SceneError(scene.file, desc.pointer + "/mesh", s.str());
}

eulerian::EulerianSolid make_solid(const scene::Scene& scene, const scene::SolidDesc& desc, const grid::MacGrid& grid,
                                   int band, EulerianSurface& surface) {
  const mesh::TetMesh tets = build_solid_mesh(desc.mesh, scene.file);
  surface = boundary_surface(desc.name, tets);
  check_inside_grid(scene, desc, surface.vertices);
  const eulerian::MaterialShape shape = material_shape(grid, desc, surface, band);
  const Vec3 c = surface.vertices.rowwise().mean();
  const Real scale = desc.initial_scale;
  eulerian::EulerianSolid s = eulerian::make_solid(
      grid, shape, eulerian::lame_from_young(desc.youngs_modulus, desc.poisson_ratio), desc.density,
      [&](const Vec3& x) { return Vec3(c + (x - c) / scale); }, band);
  check_represented(scene, desc, s.material_volume, mesh::volume(tets), grid.dx);
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

EulerianSimulator::EulerianSimulator(const scene::Scene& scene) : Simulator(scene) {
  EulerianSimulator& e = *this;
  const grid::MacGrid grid = make_grid(scene.grid);
  e.settings = world_settings(scene);
  e.world = eulerian::make_world(grid);
  for (const scene::SolidDesc& desc : scene.solids) {
    EulerianSurface surface;
    e.world.solids.push_back(make_solid(scene, desc, grid, e.settings.band, surface));
    e.surfaces.push_back(std::move(surface));
  }
  if (scene.fluid.kind == scene::Fluid::Kind::smoke) e.world.smoke = make_smoke(scene, grid);
}

StepReport EulerianSimulator::step(Real dt, StageTimes& times, const SystemObserver&) {
  EulerianSimulator& e = *this;
  EulerianSimulator& state = *this;
  std::vector<eulerian::NodeField> before;
  for (const eulerian::EulerianSolid& s : e.world.solids) before.push_back(s.v);
  eulerian::WorldReport r;
  {
    ScopedStage t(times, STAGE_EULERIAN);
    e.world.time = state.time;
    r = eulerian::step(e.world, dt, e.settings);
  }
  {
    ScopedStage t(times, STAGE_SURFACES);
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

Real EulerianSimulator::max_speed() const { return eulerian::max_speed(world); }

Real EulerianSimulator::cfl_number() const {
  const Real far = scene.time.cfl, near = scene.coupling.eulerian.contact_cfl;
  return near > 0 ? eulerian::contact_cfl(world, near, far) : far;
}

std::vector<std::string> EulerianSimulator::stages() const { return {STAGE_EULERIAN, STAGE_SURFACES}; }


std::string EulerianSimulator::summary() const {
  const EulerianSimulator& e = *this;
  const scene::Scene& s = scene;
  std::ostringstream out;
  out << scene_summary(s);
  out << "liquid    none\n";
  out << "obstacles " << s.obstacles.size() << "\n";
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
  const scene::EulerianCoupling& c = s.coupling.eulerian;
  out << "coupling  eulerian, pressure tolerance " << c.pressure_tolerance << ", velocity tolerance "
      << c.velocity_tolerance << ", " << scene::name_of(c.integration) << "\n";
  out << "output    " << s.output.directory << "\n";
  return out.str();
}

}  // namespace fsicut::sim
