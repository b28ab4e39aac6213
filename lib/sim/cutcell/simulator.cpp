#include "lib/sim/cutcell/simulator.hpp"

#include <algorithm>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/fluid/volume.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/mesh/check.hpp"
#include "lib/scene/names.hpp"
#include "lib/sim/cutcell/moving.hpp"
#include "lib/sim/cutcell/obstacles.hpp"
#include "lib/sim/cutcell/solids.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/solid/corotation.hpp"

namespace fsicut::sim {
namespace {

// Cells of exact distance around obj obstacles (see levelset::mesh_solid): the
// liquid reads the solid SDF only near the surface (face fractions, pushing
// particles out, the normal constraint), and nothing moves farther than a
// cell or two into a solid within one substep.
constexpr Real OBSTACLE_BAND_CELLS = 5;

void check_inside_grid(const scene::Scene& scene, const solid::Body& body, const std::string& pointer) {
  const Vec3 lo = body.x.rowwise().minCoeff(), hi = body.x.rowwise().maxCoeff();
  const Vec3 glo = scene.grid.origin, ghi = scene.grid.max();
  for (int d = 0; d < 3; ++d)
    if (lo[d] < glo[d] || hi[d] > ghi[d]) {
      std::ostringstream s;
      s << "solid \"" << body.name << "\" spans [" << lo.transpose() << "] - [" << hi.transpose()
        << "], outside the grid [" << glo.transpose() << "] - [" << ghi.transpose() << "] along axis " << d;
      throw SceneError(scene.file, pointer + "/mesh", s.str());
    }
}

// The basis and state of a reduced solid; its reconstruction written to `body`.
solid::ReducedBody make_reduced(const scene::Scene& scene, const scene::SolidDesc& desc, solid::Body& body) {
  if (desc.initial_scale != 1)
    throw SceneError(scene.file, desc.pointer + "/initial_scale",
                     "a reduced body starts at its rest shape (its modes are linear about it); remove "
                     "initial_scale or use \"model\": \"full\"");
  const bool free = std::none_of(body.pinned.begin(), body.pinned.end(), [](char p) { return p != 0; });
  const int available = body.dofs.num_free_dofs() - (free ? 6 : 0);
  if (desc.modes > available)
    throw SceneError(scene.file, desc.pointer + "/modes",
                     "asks for " + std::to_string(desc.modes) + " modes; solid \"" + body.name + "\" has " +
                         std::to_string(std::max(available, 0)) + " (" + std::to_string(body.dofs.num_free_dofs()) +
                         " free dofs" + (free ? " less its 6 rigid motions)" : ")"));
  solid::ReducedBody r{solid::make_reduced_basis(body, desc.modes), {}};
  r.state = solid::make_reduced_state(r.basis, body);
  solid::write_reduced_to_body(r.basis, r.state, body);
  return r;
}

// Why: a reduced body enters the coupled solve through its impulse response
// (sim/cutcell/couple.hpp), which only the spd scheme's solve takes.
void check_reduced_scheme(const CutCellSimulator& state) {
  const scene::Scene& scene = state.scene;
  if (!scene::has_liquid(scene) || scene.coupling.scheme == scene::Coupling::Scheme::spd) return;
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (state.is_reduced(b))
      throw SceneError(scene.file, "/coupling/scheme",
                       std::string("solid \"") + state.solids[b].name + "\" is reduced, and reduced bodies couple " +
                           "to the liquid in the \"spd\" scheme only, not \"" + scene::to_string(scene.coupling.scheme) +
                           "\"");
}

// A source that starts inside a solid would fill the solid's cells around it
// and push it from within: refused, naming the source. Checked: a solid node
// in the source's shape, or the middle of the source's box inside a solid.
void check_sources_clear(const CutCellSimulator& state) {
  const scene::Scene& scene = state.scene;
  for (std::size_t s = 0; s < state.flows.sources.size(); ++s) {
    const LiquidFlows::Zone& z = state.flows.sources[s];
    const Vec3 middle = 0.5 * (z.bounds.min + z.bounds.max);
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      const solid::Body& body = state.solids[b];
      bool overlap = state.surfaces.meshes[b].inside(middle);
      for (Index n = 0; n < body.x.cols() && !overlap; ++n) overlap = z.inside(body.x.col(n));
      if (overlap)
        throw SceneError(scene.file, scene.fluid.sources[s].pointer,
                         "overlaps solid \"" + body.name + "\" at the start; a source fills its shape with liquid, "
                         "so it must lie in the liquid's space (move it off the solid)");
    }
  }
}

// The obj obstacles' distances of the static obstacles only (those of
// obj_obstacle_solids, one per obj obstacle, less the moving ones').
std::vector<levelset::StaticSolid> moving_apart(const std::vector<scene::Shape>& obstacles,
                                                std::vector<levelset::StaticSolid> obj) {
  std::vector<levelset::StaticSolid> kept;
  std::size_t k = 0;
  for (const scene::Shape& s : obstacles)
    if (s.type == scene::Shape::Type::obj) {
      if (!s.motion && k < obj.size()) kept.push_back(std::move(obj[k]));
      ++k;
    }
  return kept;
}

// The static obstacles united with the moving ones where they are at the state's time.
levelset::StaticSolid seeding_solid(const CutCellSimulator& state, const levelset::StaticSolid& fixed) {
  std::vector<levelset::StaticSolid> parts{fixed};
  for (const MovingObstacle& o : state.motions.obstacles)
    if (o.rest) parts.push_back([rest = o.rest, now = o.now](const Vec3& x) { return rest(now.inverse(x)); });
  return levelset::union_solid(std::move(parts));
}

// After seeding: the liquid's static solid is the static obstacles alone
// (the moving ones are added every substep), the moving surfaces attached
// and placed.
void start_moving(CutCellSimulator& state, const levelset::StaticSolid& fixed) {
  state.liquid->solid = fixed;
  fluid::refresh_solid(*state.liquid);
  state.surfaces.static_fractions = {};
  state.motions.placed.clear();
  attach_obstacle_surfaces(state);
  place_moving(state, state.time);
}

}  // namespace

CutCellSimulator::CutCellSimulator(const scene::Scene& scene) : Simulator(scene) {
  CutCellSimulator& state = *this;
  for (const scene::SolidDesc& desc : scene.solids) {
    solid::Body body = make_solid(desc, scene.file);
    check_inside_grid(scene, body, desc.pointer);
    const std::string locking = linear_locking_warning(desc, body);
    if (!locking.empty()) log::warn(scene.file + ": " + desc.pointer + ": " + locking);
    state.reduced.push_back(desc.model == scene::SolidDesc::Model::reduced
                                ? std::optional<solid::ReducedBody>(make_reduced(scene, desc, body))
                                : std::nullopt);
    state.solids.push_back(std::move(body));
  }
  check_reduced_scheme(state);
  state.probes = probe_sites(scene.probes, state.solids, scene.file);
  // obj obstacles are read and checked even without liquid, so --validate reports a bad mesh.
  std::vector<levelset::StaticSolid> obj_obstacles =
      obj_obstacle_solids(scene.obstacles, scene.file, OBSTACLE_BAND_CELLS * scene.grid.cell_size);
  state.motions = make_motions(scene, state.solids, obj_obstacles);
  place_moving(state, 0);
  for (const PinnedDrive& d : state.motions.pinned) solid::update_rotations(state.solids[d.body]);
  if (!state.motions.obstacles.empty()) obj_obstacles = moving_apart(scene.obstacles, std::move(obj_obstacles));
  if (!scene::has_liquid(scene)) {
    if (!scene.obstacles.empty())
      log::warn(scene.file + ": /obstacles: obstacles only act on the liquid, and this scene has none");
    return;
  }
  state.surfaces = make_surfaces(state.solids, sim::obstacle_surfaces(scene.obstacles, scene.file));
  const fluid::Region in_bodies = [&state](const Vec3& x) {
    for (std::size_t b = 0; b < state.solids.size(); ++b)
      if (state.surfaces.meshes[b].inside(x)) return true;
    return false;
  };
  const levelset::StaticSolid fixed = static_solid(static_obstacles(scene.obstacles), std::move(obj_obstacles));
  // The liquid is seeded outside the moving obstacles too, where they start.
  const levelset::StaticSolid obstacles = state.motions.obstacles.empty() ? fixed : seeding_solid(state, fixed);
  const std::vector<fluid::Region> obj_regions = obj_region_tests(scene.fluid.regions, scene.file);
  const fluid::Region bodies = state.solids.empty() ? fluid::Region{} : in_bodies;
  state.flows = make_flows(scene);
  check_sources_clear(state);
  state.liquid = make_liquid(scene, obstacles, obj_regions, bodies);
  state.obstacle_surfaces = obstacle_load_surfaces(scene.obstacles, state.liquid->grid);
  if (!state.motions.obstacles.empty()) start_moving(state, fixed);
  if (!state.surfaces.meshes.empty() || !state.motions.obstacles.empty()) {
    update_solid_fields(state);
    // Beside solids thinner than a cell the liquid is seeded again, without
    // jitter where such a solid hides part of a cell (fluid::seed_particles).
    const grid::Array3<char> exact = cutcell::cells_beside_thin_solids(state.liquid->reach);
    if (exact.count() > 0) {
      state.liquid = make_liquid(scene, obstacles, obj_regions, bodies, exact);
      if (!state.motions.obstacles.empty()) start_moving(state, fixed);
      state.surfaces.fixed = false;
      update_solid_fields(state);
    }
    fluid::initialize(*state.liquid, solid_velocity(state));
  }
}

std::optional<Real> CutCellSimulator::liquid_volume() const {
  if (!liquid) return std::nullopt;
  const fluid::Liquid& l = *liquid;
  const std::vector<levelset::MeshDistance>& meshes = surfaces.meshes;
  const fluid::RegionOf region_of = [&](Index cell, const Vec3& x) {
    return cutcell::region_in_sight(l.split, l.grid, meshes, cell, x);
  };
  const fluid::MeasureRegions measure = [&](const std::vector<Index>& cells) {
    return cutcell::region_volumes(l.split, l.grid, meshes, cells);
  };
  return fluid::liquid_volume(l, region_of, measure);
}

Real CutCellSimulator::max_speed() const {
  Real speed = liquid ? fluid::max_speed(*liquid) : 0;
  if (!motions.obstacles.empty()) speed = std::max(speed, moving_speed(*this));
  for (const solid::Body& b : solids)
    if (b.num_nodes() > 0) speed = std::max(speed, b.v.colwise().norm().maxCoeff());
  // A source sets its faces before this substep's projection: its speed
  // bounds the step from the first substep it acts in.
  for (const LiquidFlows::Zone& z : flows.sources)
    if (z.active(time)) speed = std::max(speed, z.velocity.norm());
  return speed;
}

std::vector<std::string> CutCellSimulator::stages() const {
  return {STAGE_SOLID_POSITIONS, STAGE_ADVECTION,   STAGE_FORCES,
          STAGE_SOURCES,         STAGE_DISTANCE_FIELDS, STAGE_PROJECTION,
          STAGE_VISCOSITY,       STAGE_LOADS,       STAGE_DENSITY_CORRECTION,
          STAGE_EXTRAPOLATION};
}

std::string CutCellSimulator::summary() const {
  const CutCellSimulator& state = *this;
  const scene::Scene& s = state.scene;
  std::ostringstream out;
  out << scene_summary(s);
  if (state.liquid)
    out << "liquid    " << state.liquid->particles.cols() << " particles, volume " << *liquid_volume()
        << " m^3, density " << s.fluid.density << " kg/m^3\n";
  else
    out << "liquid    none\n";
  out << "obstacles " << s.obstacles.size();
  if (!state.motions.obstacles.empty()) out << " (" << state.motions.obstacles.size() << " moving)";
  out << "\n";
  if (!state.motions.pinned.empty()) out << "motion    " << state.motions.pinned.size() << " driven pinned regions\n";
  for (const solid::Body& b : state.solids) {
    const solid::BodyStats st = solid::stats(b);
    Index pinned = 0;
    for (char p : b.pinned) pinned += p ? 1 : 0;
    out << "solid     " << b.name << ": " << b.num_nodes() << " nodes, " << b.num_tets()
        << (b.quadratic() ? " quadratic (10-node) tets, " : " tets, ")
        << b.mesh.boundary.size() << " boundary triangles, " << pinned << " pinned nodes, mass " << b.total_mass()
        << " kg, volume " << st.volume << " m^3, worst tet quality " << mesh::worst_tet(b.mesh).quality << "\n";
  }
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!is_reduced(b)) continue;
    const solid::ReducedBasis& basis = state.reduced[b]->basis;
    out << "reduced   " << state.solids[b].name << ": " << (basis.free_frame ? "free frame" : "pinned, no frame")
        << ", " << basis.modes() << " modes (" << basis.solver << ")";
    if (basis.modes() > 0) {
      out << ", frequencies [Hz]";
      for (Real f : basis.frequencies()) out << " " << f;
    }
    out << "\n";
  }
  out << "coupling  " << scene::to_string(s.coupling.scheme) << ", sigma " << s.coupling.sigma << ", alpha ";
  if (s.coupling.alpha_auto) out << "auto";
  else out << s.coupling.alpha;
  out << ", tolerance " << s.coupling.tolerance << ", preconditioner " << scene::to_string(s.coupling.preconditioner)
      << "\n";
  out << "output    " << s.output.directory << "\n";
  return out.str();
}

}  // namespace fsicut::sim
