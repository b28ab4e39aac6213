#include "lib/scene/read.hpp"

#include <algorithm>
#include <cctype>

#include "lib/scene/names.hpp"
#include "lib/scene/read_eulerian.hpp"
#include "lib/scene/read_motion.hpp"
#include "lib/scene/read_probes.hpp"

namespace fsicut::scene {
namespace {

// Solid names become file names `<name>.NNNN.obj` and, while writing, hidden
// temporaries `.<name>.NNNN.obj.tmp-<pid>-<n>`: 128 characters leave room for
// those within the usual 255-byte file-name limit.
constexpr std::size_t MAX_SOLID_NAME_LENGTH = 128;

// Upper bounds on material constants, far past any real material, so that the
// matrices built from them stay finite: E = 1e308 made the stiffness infinite
// and crashed the solver. Diamond is 1.2e12 Pa, osmium 22600 kg/m^3.
constexpr Real MAX_YOUNGS_MODULUS = 1e14;  // [Pa]
constexpr Real MAX_DENSITY = 1e6;          // [kg/m^3]
// Pitch, the most viscous liquid anyone pours, is about 2e8 Pa s; the bound
// keeps dt mu / (rho dx^2) of the viscosity system finite (fluid/viscosity.hpp).
constexpr Real MAX_VISCOSITY = 1e9;        // [Pa s]
constexpr Real MAX_DAMPING_MASS = 1e6;     // tau_m [1/s]
constexpr Real MAX_DAMPING_STIFFNESS = 1e3;  // tau_k [s]

// A reduced body couples through dense modes x modes matrices, built and
// factored every substep: the cost grows like modes^3 (measured on 2 cores:
// 2181 modes of an 8^3-cell box, 23 s to set up, 11 s per projection; at 200,
// (200 / 2181)^3 of that, about 10 ms). Lu et al. keep a few dozen modes; a
// body that needs hundreds is cheaper as a full one.
constexpr int MAX_REDUCED_MODES = 200;

// The partitioned iteration stops when the solids' velocity changes by less
// than tolerance cells per substep. The CFL condition lets nothing move more
// than about one cell per substep (time/cfl): a tolerance of a whole cell
// accepts an error as large as the motion itself, and a huge one accepts a
// blow-up as converged.
constexpr Real MAX_PARTITIONED_TOLERANCE = 1;  // [cells per substep]

// A source's or drain's `from` and `until` [s].
void read_active_time(Object& o, const Where& w, Shape& s) {
  o.get("from", s.from, non_negative());
  if (!o.has("until")) return;
  o.get("until", s.until, positive());
  if (!(s.until > s.from)) (w / "until").fail("must be later than from (" + num(s.from) + " s), got " + num(s.until));
}

Shape read_shape(const json& j, const Where& w, ShapeUse use) {
  Object o(j, w);
  Shape s;
  s.pointer = w.pointer;
  NameTable<Shape::Type> types;
  for (const auto& named : names<Shape::Type>())
    if (use != PINNED || named.second != Shape::Type::obj) types.push_back(named);
  s.type = read_enum(o, "type", types, true, Shape::Type::box);
  switch (s.type) {
    case Shape::Type::box:
      o.require("min", s.min);
      o.require("max", s.max);
      check_box(s.min, s.max, w);
      break;
    case Shape::Type::sphere:
      o.require("center", s.center);
      o.require("radius", s.radius, positive());
      break;
    case Shape::Type::obj:
      o.require("path", s.path);
      s.path = resolve_input_path(s.path, w / "path");
      break;
  }
  if (use == FLUID_REGION || use == SOURCE) o.get("velocity", s.velocity);
  if (use == OBSTACLE) o.get("inside_out", s.inside_out);
  if (use == SOURCE || use == DRAIN) read_active_time(o, w, s);
  if ((use == OBSTACLE || use == PINNED) && o.has("motion")) s.motion = read_motion(o.at("motion"), w / "motion");
  o.finish();
  return s;
}

Transform read_transform(const json& j, const Where& w) {
  Object o(j, w);
  Transform t;
  o.get("translate", t.translate);
  o.get("rotate", t.rotate);
  o.get("scale", t.scale, positive());
  o.finish();
  return t;
}

MeshDesc read_mesh(const json& j, const Where& w) {
  Object o(j, w);
  MeshDesc m;
  m.pointer = w.pointer;
  m.type = read_enum(o, "type", names<MeshDesc::Type>(), true, MeshDesc::Type::box);
  switch (m.type) {
    case MeshDesc::Type::box:
      o.require("min", m.min);
      o.require("max", m.max);
      check_box(m.min, m.max, w);
      o.get("cells", m.cells, positive_vec3i());
      break;
    case MeshDesc::Type::sphere:
      o.require("center", m.center);
      o.require("radius", m.radius, positive());
      break;
    case MeshDesc::Type::shell:
      o.require("center", m.center);
      o.require("outer_radius", m.outer_radius, positive());
      o.require("inner_radius", m.inner_radius, positive());
      if (m.inner_radius >= m.outer_radius)
        (w / "inner_radius").fail("inner_radius must be smaller than outer_radius");
      break;
    case MeshDesc::Type::obj:
      o.require("path", m.path);
      m.path = resolve_input_path(m.path, w / "path");
      break;
  }
  if (m.type == MeshDesc::Type::sphere || m.type == MeshDesc::Type::shell)
    o.get("subdivisions", m.subdivisions, [](const int& v, const Where& at) {
      // Level 6 is already 81920 surface triangles: more is a typo, not a mesh.
      if (v < 0 || v > 6) at.fail("must be in 0..6, got " + std::to_string(v));
    });
  if (m.type != MeshDesc::Type::box) {
    o.get("max_tet_volume", m.max_tet_volume, non_negative());
    o.get("quality", m.quality, [](const Real& v, const Where& at) {
      // TetGen cannot guarantee radius-edge ratios below ~1.1 and may not terminate.
      if (v != 0 && v < 1.1) at.fail("must be 0 (off) or >= 1.1, got " + num(v));
    });
  }
  if (o.has("transform")) m.transform = read_transform(o.at("transform"), w / "transform");
  o.finish();
  return m;
}

SolidDesc read_solid(const json& j, const Where& w) {
  Object o(j, w);
  SolidDesc s;
  s.pointer = w.pointer;
  o.require("name", s.name, [](const std::string& name, const Where& at) {
    if (name.empty()) at.fail("must not be empty");
    if (name.size() > MAX_SOLID_NAME_LENGTH)
      at.fail("is " + std::to_string(name.size()) + " characters long; at most " +
              std::to_string(MAX_SOLID_NAME_LENGTH) + " (it names output files, and file names are limited)");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        at.fail("\"" + name + "\" names output files: use letters, digits, '_' and '-' only");
    if (name == "liquid" || name == "stats" || name == "run")
      at.fail("\"" + name + "\" is reserved for other output files");
  });
  if (!o.has("mesh")) w.fail("missing required key \"mesh\"");
  s.mesh = read_mesh(o.at("mesh"), w / "mesh");
  read_representation(o, w, o.at("mesh"), s);
  o.get("density", s.density, positive_at_most(MAX_DENSITY, "kg/m^3"));
  o.get("youngs_modulus", s.youngs_modulus, positive_at_most(MAX_YOUNGS_MODULUS, "Pa"));
  o.get("poisson_ratio", s.poisson_ratio, [](const Real& v, const Where& at) {
    if (!(v >= 0 && v < 0.5)) at.fail("must be in [0, 0.5), got " + num(v));
  });
  if (o.has("damping")) {
    Object d(o.at("damping"), w / "damping");
    d.get("mass", s.damping.mass, non_negative_at_most(MAX_DAMPING_MASS, "1/s"));
    d.get("stiffness", s.damping.stiffness, non_negative_at_most(MAX_DAMPING_STIFFNESS, "s"));
    d.finish();
  }
  o.get("velocity", s.velocity);
  if (o.has("pinned"))
    s.pinned = read_array<Shape>(o.at("pinned"), w / "pinned",
                                 [](const json& p, const Where& at) { return read_shape(p, at, PINNED); });
  o.get("initial_scale", s.initial_scale, positive());
  s.element = read_enum(o, "element", names<SolidDesc::Element>(), false, SolidDesc::Element::linear);
  s.model = read_enum(o, "model", names<SolidDesc::Model>(), false, SolidDesc::Model::full);
  o.get("modes", s.modes, [](const int& v, const Where& at) {
    if (v < 0) at.fail("must be >= 0 (0: a rigid body), got " + std::to_string(v));
    if (v > MAX_REDUCED_MODES)
      at.fail("must be at most " + std::to_string(MAX_REDUCED_MODES) + ", got " + std::to_string(v) +
              ": a reduced body's solve is dense in its modes (2181 modes took 23 s to set up and 11 s per "
              "projection); a body that needs that many is a \"full\" one");
  });
  if (o.has("modes") && s.model != SolidDesc::Model::reduced)
    (w / "modes").fail("applies to \"model\": \"reduced\" only; this solid is full");
  o.finish();
  return s;
}

void check_inside_grid(const Grid& g, const Vec3& lo, const Vec3& hi, const Where& w) {
  const Vec3 glo = g.origin, ghi = g.max();
  for (int i = 0; i < 3; ++i)
    if (lo[i] < glo[i] || hi[i] > ghi[i]) {
      std::ostringstream s;
      s << "extends outside the grid [" << glo.transpose() << "] - [" << ghi.transpose() << "] along axis " << i;
      w.fail(s.str());
    }
}

// A list of domain sides ("-x" ... "+z"), each at most once.
Sides read_sides(const json& j, const Where& w) {
  if (!j.is_array()) w.fail("expected an array of sides (\"-x\", \"+x\", \"-y\", \"+y\", \"-z\", \"+z\"), got " +
                            type_name(j));
  Sides sides{};
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Where at = w / i;
    if (!j[i].is_string()) at.fail("expected a side name (\"-x\" ... \"+z\"), got " + type_name(j[i]));
    const std::string name = j[i].get<std::string>();
    const auto* found = std::find(std::begin(SIDE_NAMES), std::end(SIDE_NAMES), name);
    if (found == std::end(SIDE_NAMES))
      at.fail("unknown side \"" + name + "\" (expected one of \"-x\", \"+x\", \"-y\", \"+y\", \"-z\", \"+z\")");
    const std::size_t side = static_cast<std::size_t>(found - std::begin(SIDE_NAMES));
    if (sides[side]) at.fail("side \"" + name + "\" is listed twice");
    sides[side] = true;
  }
  return sides;
}

// A source or drain must reach into the grid (it may cross the domain's
// walls: inflow through a wall).
void check_reaches_grid(const Grid& g, const Shape& s, const Where& w) {
  if (s.type == Shape::Type::obj) return;
  const Vec3 lo = s.type == Shape::Type::box ? s.min : Vec3(s.center.array() - s.radius);
  const Vec3 hi = s.type == Shape::Type::box ? s.max : Vec3(s.center.array() + s.radius);
  const Vec3 glo = g.origin, ghi = g.max();
  for (int i = 0; i < 3; ++i)
    if (hi[i] <= glo[i] || lo[i] >= ghi[i]) w.fail("lies outside the grid along axis " + std::to_string(i));
}

// fluid/sources and fluid/drains.
void read_flows(Object& f, const Where& fw, const Grid& grid, Fluid& fluid) {
  if (f.has("sources"))
    fluid.sources = read_array<Shape>(f.at("sources"), fw / "sources",
                                      [](const json& r, const Where& at) { return read_shape(r, at, SOURCE); });
  if (f.has("drains"))
    fluid.drains = read_array<Shape>(f.at("drains"), fw / "drains",
                                     [](const json& r, const Where& at) { return read_shape(r, at, DRAIN); });
  for (const std::vector<Shape>* list : {&fluid.sources, &fluid.drains})
    for (const Shape& s : *list) check_reaches_grid(grid, s, Where{fw.file, fw.directory, s.pointer});
}

// Sections of the scene's root, in the order read_scene reads them.

void read_grid(Object& o, const Where& w, Grid& grid) {
  if (!o.has("grid")) w.fail("missing required key \"grid\"");
  Object g(o.at("grid"), w / "grid");
  g.require("resolution", grid.resolution, positive_vec3i());
  g.get("origin", grid.origin);
  g.require("cell_size", grid.cell_size, positive());
  if (g.has("open")) grid.open = read_sides(g.at("open"), w / "grid" / "open");
  g.finish();
}

void read_time(Object& o, const Where& w, const Grid& grid, Time& time) {
  if (!o.has("time")) return;
  Object t(o.at("time"), w / "time");
  t.get("fps", time.fps, positive());
  t.get("frames", time.frames, at_least(0));
  t.get("cfl", time.cfl, positive());
  t.get("max_substeps", time.max_substeps, at_least(1));
  t.get("particle_cfl", time.particle_cfl, positive());
  t.finish();
  // Velocities are extrapolated cfl + 2 cells into the air each substep; a
  // substep that moves the liquid further than the grid is long gains
  // nothing, and 1e9 would run a billion extrapolation passes.
  const int longest = grid.resolution.maxCoeff();
  if (time.cfl > longest)
    (w / "time" / "cfl").fail("must be at most the grid's largest resolution (" + std::to_string(longest) +
                              " cells), got " + num(time.cfl));
}

void read_fluid(Object& o, const Where& w, const Grid& grid, Fluid& fluid) {
  if (!o.has("fluid")) return;
  Object f(o.at("fluid"), w / "fluid");
  f.get("density", fluid.density, positive_at_most(MAX_DENSITY, "kg/m^3"));
  f.get("particles_per_cell", fluid.particles_per_cell, at_least(1));
  f.get("seed", fluid.seed);
  f.get("density_correction", fluid.density_correction);
  f.get("viscosity", fluid.viscosity, non_negative_at_most(MAX_VISCOSITY, "Pa s"));
  if (f.has("regions"))
    fluid.regions = read_array<Shape>(f.at("regions"), w / "fluid" / "regions",
                                      [](const json& r, const Where& at) { return read_shape(r, at, FLUID_REGION); });
  read_flows(f, w / "fluid", grid, fluid);
  read_fluid_kind(f, w / "fluid", grid, fluid);
  if (fluid.kind == Fluid::Kind::smoke && !fluid.density_correction)
    (w / "fluid" / "density_correction").fail("makes no sense with \"kind\": \"smoke\" (it moves a liquid's "
                                              "particles apart; smoke has none)");
  if (fluid.kind == Fluid::Kind::smoke && fluid.viscosity > 0)
    (w / "fluid" / "viscosity").fail("applies to the liquid only (the cut-cell viscosity stage); smoke is inviscid");
  f.finish();
  for (const Shape& r : fluid.regions) {
    const Where at{w.file, w.directory, r.pointer};
    if (r.type == Shape::Type::box) check_inside_grid(grid, r.min, r.max, at);
    if (r.type == Shape::Type::sphere)
      check_inside_grid(grid, r.center.array() - r.radius, r.center.array() + r.radius, at);
  }
}

void read_solids(Object& o, const Where& w, std::vector<SolidDesc>& solids) {
  if (o.has("solids")) solids = read_array<SolidDesc>(o.at("solids"), w / "solids", read_solid);
  for (size_t i = 0; i < solids.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (solids[i].name == solids[k].name)
        (w / "solids" / i / "name").fail("duplicate solid name \"" + solids[i].name + "\" (also " +
                                         solids[k].pointer + ")");
}

void read_partitioned(Object& c, const Where& cw, Partitioned& pt) {
  if (!c.has("partitioned")) return;
  Object pc(c.at("partitioned"), cw / "partitioned");
  pc.get("relaxation", pt.relaxation, [](const Real& v, const Where& at) {
    if (!(v > 0 && v <= 1)) at.fail("must be in (0, 1], got " + num(v));
  });
  pc.get("tolerance", pt.tolerance, positive_at_most(MAX_PARTITIONED_TOLERANCE, "cell per substep"));
  pc.get("max_iterations", pt.max_iterations, at_least(1));
  pc.get("recompute_geometry", pt.recompute_geometry);
  pt.impulses = read_enum(pc, "impulses", names<Partitioned::Impulses>(), false, Partitioned{}.impulses);
  pc.finish();
}

void read_coupling(Object& o, const Where& w, Coupling& coupling) {
  if (!o.has("coupling")) return;
  Where cw = w / "coupling";
  Object c(o.at("coupling"), cw);
  coupling.scheme = read_enum(c, "scheme", names<Coupling::Scheme>(), false, Coupling::Scheme::spd);
  coupling.preconditioner =
      read_enum(c, "preconditioner", names<Coupling::Preconditioner>(), false, Coupling{}.preconditioner);
  c.get("sigma", coupling.sigma, open_interval(0, 1));
  if (c.has("alpha")) {
    const json& a = c.at("alpha");
    if (a.is_string()) {
      if (a.get<std::string>() != "auto") (cw / "alpha").fail("expected a positive number or \"auto\"");
      coupling.alpha_auto = true;
    } else {
      c.get("alpha", coupling.alpha, positive());
    }
  }
  c.get("tolerance", coupling.tolerance, open_interval(0, 1));
  c.get("max_iterations", coupling.max_iterations, at_least(1));
  c.get("allow_unconverged", coupling.allow_unconverged);
  read_partitioned(c, cw, coupling.partitioned);
  read_eulerian_coupling(c, cw, coupling);
  c.finish();
}

void read_output(Object& o, const Where& w, Output& output) {
  if (o.has("output")) {
    Object out(o.at("output"), w / "output");
    out.get("directory", output.directory);
    out.get("liquid", output.liquid);
    out.get("solids", output.solids);
    out.get("checkpoint_every", output.checkpoint_every, at_least(0));
    out.get("checkpoint_keep", output.checkpoint_keep, at_least(1));
    out.get("voxel_size", output.voxel_size, positive_optional());
    output.up_axis = read_enum(out, "up_axis", names<Output::UpAxis>(), false, Output::UpAxis::y);
    out.get("liquid_velocity", output.liquid_velocity);
    out.get("liquid_particles", output.liquid_particles);
    out.finish();
  }
  output.directory = resolve_path(output.directory, w / "output" / "directory");
}

}  // namespace

Scene read_scene(const json& root, const std::string& file, const std::string& directory) {
  Where w{file, directory, ""};
  Object o(root, w);
  Scene scene;
  scene.file = file;
  scene.directory = directory;

  // Editors attach a JSON Schema through "$schema" (scenes/schema.json): a
  // string that names it, not part of the simulation.
  if (o.has("$schema") && !o.at("$schema").is_string())
    (w / "$schema").fail("expected a string (the path or URL of a JSON Schema), got " + type_name(o.at("$schema")));
  read_grid(o, w, scene.grid);
  read_time(o, w, scene.grid, scene.time);
  o.get("gravity", scene.gravity);
  read_fluid(o, w, scene.grid, scene.fluid);
  if (o.has("obstacles"))
    scene.obstacles = read_array<Shape>(o.at("obstacles"), w / "obstacles",
                                        [](const json& r, const Where& at) { return read_shape(r, at, OBSTACLE); });
  read_solids(o, w, scene.solids);
  read_coupling(o, w, scene.coupling);
  read_output(o, w, scene.output);
  if (o.has("probes")) scene.probes = read_probes(o.at("probes"), w / "probes", scene.grid, scene.solids);
  o.get("strict", scene.strict);
  scene.on_absurd = read_enum(o, "on_absurd", names<Scene::OnAbsurd>(), false, Scene::OnAbsurd::stop);
  o.finish();
  check_eulerian(scene, w);
  return scene;
}

}  // namespace fsicut::scene
