#include "lib/sim/cutcell/moving.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {
namespace {

// Samples per keyframe segment (and per sine period) of the out-of-grid
// check: a rotation by at most 180 degrees per segment is followed within
// 1 - cos(pi / 64), 0.1 % of the shape's size.
constexpr int MOTION_CHECK_SAMPLES = 32;

bool in_pinned_region(const scene::Shape& s, const Vec3& p) {
  if (s.type == scene::Shape::Type::box)
    return (p.array() >= s.min.array()).all() && (p.array() <= s.max.array()).all();
  return s.type == scene::Shape::Type::sphere && (p - s.center).norm() <= s.radius;
}

// Bounding box and centre of a shape as placed [m].
void shape_bounds(const scene::Shape& s, Vec3& lo, Vec3& hi, Vec3& centre) {
  switch (s.type) {
    case scene::Shape::Type::box: lo = s.min, hi = s.max, centre = 0.5 * (s.min + s.max); break;
    case scene::Shape::Type::sphere:
      lo = s.center.array() - s.radius, hi = s.center.array() + s.radius, centre = s.center;
      break;
    case scene::Shape::Type::obj: {
      const mesh::SurfaceMesh m = mesh::read_obj(s.path);
      lo = m.vertices.rowwise().minCoeff(), hi = m.vertices.rowwise().maxCoeff();
      centre = m.vertices.rowwise().mean();
      break;
    }
  }
}

// The bounding box of the box lo..hi placed by m.
void placed_bounds(const scene::MotionState& m, const Vec3& lo, const Vec3& hi, Vec3& out_lo, Vec3& out_hi) {
  out_lo = Vec3::Constant(std::numeric_limits<Real>::infinity());
  out_hi = -out_lo;
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner((c & 1) ? hi.x() : lo.x(), (c & 2) ? hi.y() : lo.y(), (c & 4) ? hi.z() : lo.z());
    const Vec3 x = m.apply(corner);
    out_lo = out_lo.cwiseMin(x);
    out_hi = out_hi.cwiseMax(x);
  }
}

// The times the out-of-grid checks look at: every keyframe and
// MOTION_CHECK_SAMPLES between two; a sine's period.
std::vector<Real> check_times(const scene::Motion& motion) {
  std::vector<Real> times;
  if (motion.type == scene::Motion::Type::sine) {
    const auto [from, to] = scene::motion_span(motion);
    for (int k = 0; k < MOTION_CHECK_SAMPLES; ++k) times.push_back(from + (to - from) * k / MOTION_CHECK_SAMPLES);
    return times;
  }
  const std::vector<scene::Keyframe>& keys = motion.keyframes;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    times.push_back(keys[k].time);
    if (k + 1 < keys.size())
      for (int s = 1; s < MOTION_CHECK_SAMPLES; ++s)
        times.push_back(keys[k].time + (keys[k + 1].time - keys[k].time) * s / MOTION_CHECK_SAMPLES);
  }
  return times;
}

[[noreturn]] void refuse_out_of_grid(const scene::Scene& scene, const scene::Motion& motion, const std::string& what,
                                     Real t, const Vec3& lo, const Vec3& hi) {
  std::ostringstream s;
  s << "takes " << what << " out of the grid: at t = " << t << " s it spans [" << lo.transpose() << "] - ["
    << hi.transpose() << "], the grid [" << scene.grid.origin.transpose() << "] - [" << scene.grid.max().transpose()
    << "] (refused, not clipped: scenes/README.md \"Motion\")";
  throw SceneError(scene.file, motion.pointer, s.str());
}

// An obstacle must keep some part in the grid: wholly outside, it would act on
// nothing (a motion in the wrong unit, or the wrong sign).
void check_obstacle_motion(const scene::Scene& scene, const scene::Motion& motion, const MovingObstacle& o) {
  for (Real t : check_times(motion)) {
    Vec3 lo, hi;
    placed_bounds(scene::evaluate(motion, t, o.centre), o.lo, o.hi, lo, hi);
    const bool overlaps = (hi.array() > scene.grid.origin.array()).all() && (lo.array() < scene.grid.max().array()).all();
    if (!overlaps) refuse_out_of_grid(scene, motion, "the obstacle wholly", t, lo, hi);
  }
}

// A driven pinned node must stay in the grid, as every solid node starts.
void check_pinned_motion(const scene::Scene& scene, const scene::Motion& motion, const solid::Body& body,
                         const PinnedDrive& d) {
  if (d.nodes.empty()) return;
  for (Real t : check_times(motion)) {
    const scene::MotionState m = scene::evaluate(motion, t, d.centre);
    Vec3 lo = Vec3::Constant(std::numeric_limits<Real>::infinity()), hi = -lo;
    for (int n : d.nodes) {
      const Vec3 x = m.apply(body.mesh.rest.col(n));
      lo = lo.cwiseMin(x);
      hi = hi.cwiseMax(x);
    }
    if ((lo.array() < scene.grid.origin.array()).any() || (hi.array() > scene.grid.max().array()).any())
      refuse_out_of_grid(scene, motion, "pinned nodes of solid \"" + body.name + "\"", t, lo, hi);
  }
}

std::vector<PinnedDrive> make_drives(const scene::Scene& scene, const std::vector<solid::Body>& bodies) {
  std::vector<PinnedDrive> drives;
  for (std::size_t b = 0; b < scene.solids.size() && b < bodies.size(); ++b) {
    const scene::SolidDesc& desc = scene.solids[b];
    for (std::size_t r = 0; r < desc.pinned.size(); ++r) {
      const scene::Shape& region = desc.pinned[r];
      if (!region.motion) continue;
      if (desc.model == scene::SolidDesc::Model::reduced)
        throw SceneError(scene.file, region.motion->pointer,
                         "a reduced body's pinned nodes cannot be driven (its modes are those of the fixed "
                         "supports); use \"model\": \"full\"");
      PinnedDrive d;
      d.body = b;
      d.region = r;
      Vec3 lo, hi;
      shape_bounds(region, lo, hi, d.centre);
      const solid::Body& body = bodies[b];
      for (Index n = 0; n < body.num_nodes(); ++n)
        if (body.pinned[n] && in_pinned_region(region, body.mesh.rest.col(n))) d.nodes.push_back(static_cast<int>(n));
      check_pinned_motion(scene, *region.motion, body, d);
      drives.push_back(std::move(d));
    }
  }
  return drives;
}

// The nodes (inclusive, clipped to the grid) where obstacle o's distance can
// be below the band: its placed bounding box widened by the band and a node;
// an inside-out obstacle is solid everywhere outside its shape: all nodes.
void node_window(const grid::MacGrid& g, const MovingObstacle& o, bool inside_out, Vec3i& lo, Vec3i& hi) {
  const Vec3i last = g.node_shape() - Vec3i::Ones();
  lo = Vec3i::Zero();
  hi = last;
  if (inside_out) return;
  Vec3 a, b;
  placed_bounds(o.now, o.lo, o.hi, a, b);
  const Real widen = SOLID_BAND_CELLS + 1;
  const Vec3 from = ((a - g.origin) / g.dx).array() - widen, to = ((b - g.origin) / g.dx).array() + widen;
  const Vec3 limit = last.cast<Real>();
  lo = from.cwiseMax(Vec3::Zero()).cwiseMin(limit).array().floor().cast<int>();
  hi = to.cwiseMax(Vec3::Zero()).cwiseMin(limit).array().ceil().cast<int>();
}

// Calls f(i, j, k) for every index of lo..hi (inclusive), in parallel over k-slices.
template <class F>
void for_window(const Vec3i& lo, const Vec3i& hi, F&& f) {
  const Vec3i size = (hi - lo + Vec3i::Ones()).cwiseMax(0);
  const Index count = Index(size.x()) * size.y() * size.z();
  parallel_for(0, count, [&](Index n) {
    const int i = lo.x() + static_cast<int>(n % size.x()), j = lo.y() + static_cast<int>(n / size.x() % size.y()),
              k = lo.z() + static_cast<int>(n / (Index(size.x()) * size.y()));
    f(i, j, k);
  });
}

}  // namespace

std::vector<scene::Shape> static_obstacles(const std::vector<scene::Shape>& obstacles) {
  std::vector<scene::Shape> out;
  for (const scene::Shape& s : obstacles)
    if (!s.motion) out.push_back(s);
  return out;
}

Motions make_motions(const scene::Scene& scene, const std::vector<solid::Body>& bodies,
                     const std::vector<levelset::StaticSolid>& obj_solids) {
  Motions out;
  std::size_t obj = 0;
  for (std::size_t i = 0; i < scene.obstacles.size(); ++i) {
    const scene::Shape& s = scene.obstacles[i];
    const bool is_obj = s.type == scene::Shape::Type::obj;
    if (is_obj) ++obj;
    if (!s.motion) continue;
    MovingObstacle o;
    o.obstacle = i;
    switch (s.type) {
      case scene::Shape::Type::box: o.rest = levelset::box_solid(s.min, s.max, s.inside_out); break;
      case scene::Shape::Type::sphere: o.rest = levelset::sphere_solid(s.center, s.radius, s.inside_out); break;
      case scene::Shape::Type::obj: o.rest = obj <= obj_solids.size() ? obj_solids[obj - 1] : nullptr; break;
    }
    shape_bounds(s, o.lo, o.hi, o.centre);
    check_obstacle_motion(scene, *s.motion, o);
    out.obstacles.push_back(std::move(o));
  }
  out.pinned = make_drives(scene, bodies);
  return out;
}

void attach_obstacle_surfaces(CutCellSimulator& state) {
  const std::vector<scene::Shape>& obstacles = state.scene.obstacles;
  // sim::obstacle_surfaces: one per box or obj obstacle that is not inside-out, after the bodies.
  std::vector<int> entry(obstacles.size(), -1);
  int next = static_cast<int>(state.solids.size());
  for (std::size_t i = 0; i < obstacles.size(); ++i)
    if (!obstacles[i].inside_out && obstacles[i].type != scene::Shape::Type::sphere) entry[i] = next++;
  for (MovingObstacle& o : state.motions.obstacles) {
    o.surface = entry[o.obstacle];
    if (o.surface >= 0 && o.surface < static_cast<int>(state.surfaces.meshes.size()))
      o.rest_vertices = state.surfaces.meshes[static_cast<std::size_t>(o.surface)].vertices();
    else
      o.surface = -1;
    if (o.obstacle < state.obstacle_surfaces.size()) {
      const ObstacleSurface& load = state.obstacle_surfaces[o.obstacle];
      o.load_vertices = load.surface.vertices;
      o.load_centre = load.centre;
    }
  }
}

void place_moving(CutCellSimulator& state, Real t) {
  const scene::Scene& scene = state.scene;
  for (MovingObstacle& o : state.motions.obstacles)
    o.now = scene::evaluate(*scene.obstacles[o.obstacle].motion, t, o.centre);
  for (const PinnedDrive& d : state.motions.pinned) {
    solid::Body& body = state.solids[d.body];
    const scene::MotionState m = scene::evaluate(*scene.solids[d.body].pinned[d.region].motion, t, d.centre);
    for (int n : d.nodes) {
      body.x.col(n) = m.apply(body.mesh.rest.col(n));
      body.v.col(n) = m.velocity_at(body.x.col(n));
    }
  }
}

void place_obstacle_surfaces(CutCellSimulator& state) {
  for (const MovingObstacle& o : state.motions.obstacles) {
    const auto placed = [&o](const Points& rest) {
      Points x(3, rest.cols());
      for (Index n = 0; n < rest.cols(); ++n) x.col(n) = o.now.apply(rest.col(n));
      return x;
    };
    if (o.surface >= 0) state.surfaces.meshes[static_cast<std::size_t>(o.surface)].set_vertices(placed(o.rest_vertices));
    if (state.liquid && o.obstacle < state.obstacle_surfaces.size() && o.load_vertices.cols() > 0)
      place_obstacle_surface(state.obstacle_surfaces[o.obstacle], placed(o.load_vertices), o.now.apply(o.load_centre),
                             state.liquid->grid);
  }
}

bool obstacles_moved(const CutCellSimulator& state) {
  const std::vector<scene::MotionState>& placed = state.motions.placed;
  if (placed.empty() || placed.size() != state.motions.obstacles.size()) return true;
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const scene::MotionState& now = state.motions.obstacles[k].now;
    if (now.rotation != placed[k].rotation || now.translation != placed[k].translation) return true;
  }
  return false;
}

void add_moving_obstacles(CutCellSimulator& state) {
  place_obstacle_surfaces(state);
  state.motions.placed.clear();
  for (const MovingObstacle& o : state.motions.obstacles) state.motions.placed.push_back(o.now);
  fluid::Liquid& l = *state.liquid;
  const grid::MacGrid& g = l.grid;
  const Real band = SOLID_BAND_CELLS * g.dx, tie = levelset::SURFACE_TIE_CELLS * g.dx;
  const Vec3i last = g.node_shape() - Vec3i::Ones();
  // Beyond its window an obstacle is farther than the band: +band there, as a
  // body's distance is (solid_fields.hpp), so that solid_phi stays a lower
  // bound of the distance to every solid (the particle paths skip the
  // particles it puts farther than their path is long).
  std::vector<Real>& all = l.solid_phi.data();
  parallel_for(0, static_cast<Index>(all.size()), [&](Index i) { all[i] = std::min(all[i], band - tie); });
  for (const MovingObstacle& o : state.motions.obstacles) {
    if (!o.rest) continue;
    Vec3i lo, hi;
    node_window(g, o, state.scene.obstacles[o.obstacle].inside_out, lo, hi);
    // As the static field: ties moved into the solid (levelset::resolve_surface_ties),
    // the boundary nodes given their inward neighbour's value (extend_through_domain_walls).
    for_window(lo, hi, [&](int i, int j, int k) {
      Vec3i from(i, j, k);
      for (int a = 0; a < 3; ++a)
        if (last[a] >= 2) from[a] = std::clamp(from[a], 1, last[a] - 1);
      const Real d = std::min(o.rest(o.now.inverse(g.node_position(from.x(), from.y(), from.z()))), band) - tie;
      Real& phi = l.solid_phi(i, j, k);
      phi = std::min(phi, d);
    });
    cutcell::update_face_fractions(g, l.solid_phi, lo, hi, l.fractions);
  }
}

bool moving_obstacle_velocity(const CutCellSimulator& state, const Vec3& x, Real band, Vec3& v, Real* distance) {
  Real best = band;
  const MovingObstacle* nearest = nullptr;
  for (const MovingObstacle& o : state.motions.obstacles) {
    if (!o.rest) continue;
    const Real d = o.rest(o.now.inverse(x));
    if (!(d < best)) continue;
    best = d;
    nearest = &o;
  }
  if (!nearest) return false;
  const levelset::StaticSolid& fixed = state.liquid->solid;
  if (fixed && !(best < fixed(x))) return false;
  v = nearest->now.velocity_at(x);
  if (distance) *distance = best;
  return true;
}

const grid::MacVelocity* update_wall_velocity(CutCellSimulator& state) {
  if (state.motions.obstacles.empty() || !state.liquid) return nullptr;
  const grid::MacGrid& g = state.liquid->grid;
  grid::MacVelocity& wall = state.motions.wall;
  for (int a = 0; a < 3; ++a) {
    if (wall[a].size() != g.face_shape(a)) wall[a].resize(g.face_shape(a), 0);
    std::fill(wall[a].data().begin(), wall[a].data().end(), Real(0));
  }
  const Real band = SOLID_BAND_CELLS * g.dx;
  for (const MovingObstacle& o : state.motions.obstacles) {
    Vec3i lo, hi;
    node_window(g, o, state.scene.obstacles[o.obstacle].inside_out, lo, hi);
    for (int a = 0; a < 3; ++a) {
      const grid::Sampling s = grid::face_sampling(a);
      Vec3i top = hi.cwiseMin(g.face_shape(a) - Vec3i::Ones());
      Vec3i bottom = lo;
      // The domain's walls stand still.
      bottom[a] = std::max(bottom[a], 1);
      top[a] = std::min(top[a], g.resolution[a] - 1);
      for_window(bottom, top, [&](int i, int j, int k) {
        Vec3 v;
        if (moving_obstacle_velocity(state, g.position(s, i, j, k), band, v)) wall[a](i, j, k) = v[a];
      });
    }
  }
  return &wall;
}

Real moving_speed(const CutCellSimulator& state) {
  Real speed = 0;
  for (const MovingObstacle& o : state.motions.obstacles) {
    Real reach = 0;
    for (int c = 0; c < 8; ++c) {
      const Vec3 corner((c & 1) ? o.hi.x() : o.lo.x(), (c & 2) ? o.hi.y() : o.lo.y(), (c & 4) ? o.hi.z() : o.lo.z());
      reach = std::max(reach, (corner - o.now.pivot).norm());
    }
    speed = std::max(speed, o.now.velocity.norm() + o.now.angular.norm() * reach);
  }
  return speed;
}

}  // namespace fsicut::sim
