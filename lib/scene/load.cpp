#include "lib/scene/load.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lib/core/error.hpp"

namespace fsicut::scene {
namespace {

// Solid names become file names `<name>.NNNN.obj` and, while writing, hidden
// temporaries `.<name>.NNNN.obj.tmp-<pid>-<n>`: 128 characters leave room for
// those within the usual 255-byte file-name limit.
constexpr std::size_t MAX_SOLID_NAME_LENGTH = 128;

using json = nlohmann::json;
namespace fs = std::filesystem;

// Where in the scene we are: the file (for messages), its folder (for paths)
// and the JSON pointer of the current value.
struct Where {
  const std::string& file;
  const std::string& directory;
  std::string pointer;

  Where operator/(const std::string& key) const {
    std::string escaped;
    for (char c : key) {
      if (c == '~') escaped += "~0";
      else if (c == '/') escaped += "~1";
      else escaped += c;
    }
    return {file, directory, pointer + "/" + escaped};
  }
  Where operator/(size_t index) const { return {file, directory, pointer + "/" + std::to_string(index)}; }
  [[noreturn]] void fail(const std::string& message) const { throw SceneError(file, pointer, message); }
};

std::string type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

// An object being read. Every key the reader asks for, present or not, is
// "known"; finish() rejects the keys in the file that nobody asked for.
class Object {
 public:
  Object(const json& j, Where where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) where_.fail("expected an object, got " + type_name(j_));
  }

  const Where& where() const { return where_; }
  bool has(const std::string& key) {
    known_.push_back(key);
    return j_.contains(key);
  }
  const json& at(const std::string& key) const { return j_.at(key); }

  template <class T, class Check>
  void get(const std::string& key, T& out, Check check) {
    if (!has(key)) return;
    read(j_.at(key), where_ / key, out);
    check(out, where_ / key);
  }
  template <class T>
  void get(const std::string& key, T& out) {
    get(key, out, [](const T&, const Where&) {});
  }
  template <class T, class Check>
  void require(const std::string& key, T& out, Check check) {
    if (!has(key)) where_.fail("missing required key \"" + key + "\"");
    get(key, out, check);
  }
  template <class T>
  void require(const std::string& key, T& out) {
    require(key, out, [](const T&, const Where&) {});
  }

  void finish() const {
    for (const auto& item : j_.items()) {
      if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
      std::string message = "unknown key \"" + item.key() + "\"";
      const std::string hint = closest_key(item.key(), known_);
      if (!hint.empty()) message += " (did you mean \"" + hint + "\"?)";
      (where_ / item.key()).fail(message);
    }
  }

  static void read(const json& j, const Where& w, Real& out) {
    if (!j.is_number()) w.fail("expected a number, got " + type_name(j));
    out = j.get<Real>();
    if (!std::isfinite(out)) w.fail("expected a finite number");
  }
  static void read(const json& j, const Where& w, int& out) {
    if (!j.is_number_integer()) w.fail("expected an integer, got " + type_name(j));
    // Unsigned JSON integers above LLONG_MAX would wrap in get<long long>().
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      w.fail("integer out of range: at most " + std::to_string(std::numeric_limits<int>::max()));
    const auto v = j.get<long long>();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      w.fail("integer out of range: " + std::to_string(std::numeric_limits<int>::min()) + " to " +
             std::to_string(std::numeric_limits<int>::max()));
    out = static_cast<int>(v);
  }
  static void read(const json& j, const Where& w, unsigned& out) {
    if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<long long>() < 0))
      w.fail("expected a non-negative integer, got " + type_name(j));
    // get<unsigned>() keeps the low 32 bits: 2^40 silently became 0.
    if (j.get<std::uint64_t>() > std::numeric_limits<unsigned>::max())
      w.fail("integer out of range: 0 to " + std::to_string(std::numeric_limits<unsigned>::max()));
    out = j.get<unsigned>();
  }
  static void read(const json& j, const Where& w, bool& out) {
    if (!j.is_boolean()) w.fail("expected true or false, got " + type_name(j));
    out = j.get<bool>();
  }
  static void read(const json& j, const Where& w, std::string& out) {
    if (!j.is_string()) w.fail("expected a string, got " + type_name(j));
    out = j.get<std::string>();
  }
  static void read(const json& j, const Where& w, Vec3& out) {
    if (!j.is_array() || j.size() != 3) w.fail("expected an array of 3 numbers, got " + type_name(j));
    for (size_t i = 0; i < 3; ++i) read(j[i], w / i, out[static_cast<Index>(i)]);
  }
  static void read(const json& j, const Where& w, Vec3i& out) {
    if (!j.is_array() || j.size() != 3) w.fail("expected an array of 3 integers, got " + type_name(j));
    for (size_t i = 0; i < 3; ++i) read(j[i], w / i, out[static_cast<Index>(i)]);
  }
  static void read(const json& j, const Where& w, std::optional<Real>& out) {
    Real v = 0;
    read(j, w, v);
    out = v;
  }

 private:
  const json& j_;
  Where where_;
  std::vector<std::string> known_;
};

// Numbers in messages as a user would write them (0.5, 1e-10), not std::to_string's 0.500000.
template <class T>
std::string num(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Range checks, named so that messages say what the range is.
auto positive() {
  return [](const auto& v, const Where& w) {
    if (!(v > 0)) w.fail("must be > 0, got " + num(v));
  };
}
auto non_negative() {
  return [](const auto& v, const Where& w) {
    if (v < 0) w.fail("must be >= 0, got " + num(v));
  };
}
auto at_least(int lo) {
  return [lo](const int& v, const Where& w) {
    if (v < lo) w.fail("must be >= " + num(lo) + ", got " + num(v));
  };
}
auto open_interval(Real lo, Real hi) {
  return [lo, hi](const Real& v, const Where& w) {
    if (!(v > lo && v < hi))
      w.fail("must be in (" + num(lo) + ", " + num(hi) + "), got " + num(v));
  };
}
// Upper bounds on material constants, far past any real material, so that the
// matrices built from them stay finite: E = 1e308 made the stiffness infinite
// and crashed the solver. Diamond is 1.2e12 Pa, osmium 22600 kg/m^3.
constexpr Real MAX_YOUNGS_MODULUS = 1e14;  // [Pa]
constexpr Real MAX_DENSITY = 1e6;          // [kg/m^3]
constexpr Real MAX_DAMPING_MASS = 1e6;     // tau_m [1/s]
constexpr Real MAX_DAMPING_STIFFNESS = 1e3;  // tau_k [s]

auto positive_at_most(Real hi, const char* unit) {
  return [hi, unit](const Real& v, const Where& w) {
    if (!(v > 0 && v <= hi)) w.fail("must be > 0 and at most " + num(hi) + " " + unit + ", got " + num(v));
  };
}
auto non_negative_at_most(Real hi, const char* unit) {
  return [hi, unit](const Real& v, const Where& w) {
    if (!(v >= 0 && v <= hi)) w.fail("must be >= 0 and at most " + num(hi) + " " + unit + ", got " + num(v));
  };
}
auto positive_vec3i() {
  return [](const Vec3i& v, const Where& w) {
    for (int i = 0; i < 3; ++i)
      if (v[i] < 1) (w / static_cast<size_t>(i)).fail("must be >= 1, got " + num(v[i]));
  };
}
auto positive_optional() {
  return [](const std::optional<Real>& v, const Where& w) {
    if (v && !(*v > 0)) w.fail("must be > 0, got " + num(*v));
  };
}

template <class Enum>
Enum read_enum(Object& o, const std::string& key, const std::vector<std::pair<std::string, Enum>>& names,
               bool required, Enum fallback) {
  if (!o.has(key)) {
    if (required) o.where().fail("missing required key \"" + key + "\"");
    return fallback;
  }
  std::string name;
  o.get(key, name);
  std::vector<std::string> options;
  for (const auto& [n, e] : names) {
    if (n == name) return e;
    options.push_back(n);
  }
  std::string message = "unknown " + key + " \"" + name + "\"; expected one of:";
  for (const auto& n : options) message += " " + n;
  const std::string hint = closest_key(name, options);
  if (!hint.empty()) message += " (did you mean \"" + hint + "\"?)";
  (o.where() / key).fail(message);
}

std::string resolve_path(const std::string& path, const Where& w) {
  if (path.empty()) w.fail("path must not be empty");
  fs::path p(path);
  if (p.is_relative()) p = fs::path(w.directory) / p;
  return p.lexically_normal().string();
}

// An input mesh must be a regular file: a folder fails obscurely, and reading
// a FIFO or a device such as /dev/zero never ends. A missing file is left to
// the reader, which reports it as a missing input (exit 66).
std::string resolve_input_path(const std::string& path, const Where& w) {
  const std::string resolved = resolve_path(path, w);
  std::error_code ec;
  const fs::file_status status = fs::status(resolved, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status))
    w.fail("\"" + resolved + "\" is not a regular file");
  return resolved;
}

void check_box(const Vec3& lo, const Vec3& hi, const Where& w) {
  for (int i = 0; i < 3; ++i)
    if (!(hi[i] > lo[i])) (w / "max").fail("max must exceed min along every axis (axis " + std::to_string(i) + ")");
}

// Shapes: regions, obstacles, pinned regions. `kinds` says which fields apply.
enum ShapeUse { FLUID_REGION, OBSTACLE, PINNED };

Shape read_shape(const json& j, const Where& w, ShapeUse use) {
  Object o(j, w);
  Shape s;
  s.pointer = w.pointer;
  std::vector<std::pair<std::string, Shape::Type>> types = {{"box", Shape::Type::box},
                                                            {"sphere", Shape::Type::sphere}};
  if (use != PINNED) types.push_back({"obj", Shape::Type::obj});
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
  if (use == FLUID_REGION) o.get("velocity", s.velocity);
  if (use == OBSTACLE) o.get("inside_out", s.inside_out);
  o.finish();
  return s;
}

template <class T, class ReadOne>
std::vector<T> read_array(const json& j, const Where& w, ReadOne read_one) {
  if (!j.is_array()) w.fail("expected an array, got " + type_name(j));
  std::vector<T> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(read_one(j[i], w / i));
  return out;
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
  m.type = read_enum(o, "type",
                     std::vector<std::pair<std::string, MeshDesc::Type>>{{"box", MeshDesc::Type::box},
                                                                          {"sphere", MeshDesc::Type::sphere},
                                                                          {"shell", MeshDesc::Type::shell},
                                                                          {"obj", MeshDesc::Type::obj}},
                     true, MeshDesc::Type::box);
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
  s.element = read_enum(o, "element",
                        std::vector<std::pair<std::string, SolidDesc::Element>>{
                            {"linear", SolidDesc::Element::linear}, {"quadratic", SolidDesc::Element::quadratic}},
                        false, SolidDesc::Element::linear);
  s.model = read_enum(o, "model",
                      std::vector<std::pair<std::string, SolidDesc::Model>>{{"full", SolidDesc::Model::full},
                                                                            {"reduced", SolidDesc::Model::reduced}},
                      false, SolidDesc::Model::full);
  o.get("modes", s.modes, [](const int& v, const Where& at) {
    if (v < 0) at.fail("must be >= 0 (0: a rigid body), got " + std::to_string(v));
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
  if (!o.has("grid")) w.fail("missing required key \"grid\"");
  {
    Object g(o.at("grid"), w / "grid");
    g.require("resolution", scene.grid.resolution, positive_vec3i());
    g.get("origin", scene.grid.origin);
    g.require("cell_size", scene.grid.cell_size, positive());
    g.finish();
  }
  if (o.has("time")) {
    Object t(o.at("time"), w / "time");
    t.get("fps", scene.time.fps, positive());
    t.get("frames", scene.time.frames, at_least(0));
    t.get("cfl", scene.time.cfl, positive());
    t.get("max_substeps", scene.time.max_substeps, at_least(1));
    t.finish();
    // Velocities are extrapolated cfl + 2 cells into the air each substep; a
    // substep that moves the liquid further than the grid is long gains
    // nothing, and 1e9 would run a billion extrapolation passes.
    const int longest = scene.grid.resolution.maxCoeff();
    if (scene.time.cfl > longest)
      (w / "time" / "cfl").fail("must be at most the grid's largest resolution (" + std::to_string(longest) +
                                " cells), got " + num(scene.time.cfl));
  }
  o.get("gravity", scene.gravity);
  if (o.has("fluid")) {
    Object f(o.at("fluid"), w / "fluid");
    f.get("density", scene.fluid.density, positive_at_most(MAX_DENSITY, "kg/m^3"));
    f.get("particles_per_cell", scene.fluid.particles_per_cell, at_least(1));
    f.get("seed", scene.fluid.seed);
    if (f.has("regions"))
      scene.fluid.regions = read_array<Shape>(f.at("regions"), w / "fluid" / "regions",
                                              [](const json& r, const Where& at) { return read_shape(r, at, FLUID_REGION); });
    f.finish();
    for (const Shape& r : scene.fluid.regions) {
      const Where at{file, directory, r.pointer};
      if (r.type == Shape::Type::box) check_inside_grid(scene.grid, r.min, r.max, at);
      if (r.type == Shape::Type::sphere)
        check_inside_grid(scene.grid, r.center.array() - r.radius, r.center.array() + r.radius, at);
    }
  }
  if (o.has("obstacles"))
    scene.obstacles = read_array<Shape>(o.at("obstacles"), w / "obstacles",
                                        [](const json& r, const Where& at) { return read_shape(r, at, OBSTACLE); });
  if (o.has("solids"))
    scene.solids = read_array<SolidDesc>(o.at("solids"), w / "solids", read_solid);
  for (size_t i = 0; i < scene.solids.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (scene.solids[i].name == scene.solids[k].name)
        (w / "solids" / i / "name").fail("duplicate solid name \"" + scene.solids[i].name + "\" (also " +
                                         scene.solids[k].pointer + ")");
  if (o.has("coupling")) {
    Where cw = w / "coupling";
    Object c(o.at("coupling"), cw);
    scene.coupling.scheme = read_enum(c, "scheme",
                                      std::vector<std::pair<std::string, Coupling::Scheme>>{
                                          {"spd", Coupling::Scheme::spd},
                                          {"indefinite", Coupling::Scheme::indefinite},
                                          {"damping_only", Coupling::Scheme::damping_only},
                                          {"weak", Coupling::Scheme::weak},
                                          {"partitioned", Coupling::Scheme::partitioned},
                                          {"xpm", Coupling::Scheme::xpm}},
                                      false, Coupling::Scheme::spd);
    scene.coupling.preconditioner =
        read_enum(c, "preconditioner",
                  std::vector<std::pair<std::string, Coupling::Preconditioner>>{
                      {"multigrid", Coupling::Preconditioner::multigrid},
                      {"mic", Coupling::Preconditioner::mic},
                      {"ic", Coupling::Preconditioner::ic}},
                  false, Coupling{}.preconditioner);
    c.get("sigma", scene.coupling.sigma, open_interval(0, 1));
    if (c.has("alpha")) {
      const json& a = c.at("alpha");
      if (a.is_string()) {
        if (a.get<std::string>() != "auto") (cw / "alpha").fail("expected a positive number or \"auto\"");
        scene.coupling.alpha_auto = true;
      } else {
        c.get("alpha", scene.coupling.alpha, positive());
      }
    }
    c.get("tolerance", scene.coupling.tolerance, open_interval(0, 1));
    c.get("max_iterations", scene.coupling.max_iterations, at_least(1));
    c.get("allow_unconverged", scene.coupling.allow_unconverged);
    if (c.has("partitioned")) {
      Object pc(c.at("partitioned"), cw / "partitioned");
      Partitioned& pt = scene.coupling.partitioned;
      pc.get("relaxation", pt.relaxation, [](const Real& v, const Where& at) {
        if (!(v > 0 && v <= 1)) at.fail("must be in (0, 1], got " + num(v));
      });
      pc.get("tolerance", pt.tolerance, positive());
      pc.get("max_iterations", pt.max_iterations, at_least(1));
      pc.get("recompute_geometry", pt.recompute_geometry);
      pt.impulses = read_enum(pc, "impulses",
                              std::vector<std::pair<std::string, Partitioned::Impulses>>{
                                  {"pressure", Partitioned::Impulses::pressure},
                                  {"conservative", Partitioned::Impulses::conservative}},
                              false, Partitioned{}.impulses);
      pc.finish();
    }
    c.finish();
  }
  if (o.has("output")) {
    Object out(o.at("output"), w / "output");
    out.get("directory", scene.output.directory);
    out.get("liquid", scene.output.liquid);
    out.get("solids", scene.output.solids);
    out.get("checkpoint_every", scene.output.checkpoint_every, at_least(0));
    out.get("checkpoint_keep", scene.output.checkpoint_keep, at_least(1));
    out.get("voxel_size", scene.output.voxel_size, positive_optional());
    scene.output.up_axis = read_enum(out, "up_axis",
                                     std::vector<std::pair<std::string, Output::UpAxis>>{
                                         {"y", Output::UpAxis::y}, {"z", Output::UpAxis::z}},
                                     false, Output::UpAxis::y);
    out.get("liquid_velocity", scene.output.liquid_velocity);
    out.get("liquid_particles", scene.output.liquid_particles);
    out.finish();
  }
  scene.output.directory = resolve_path(scene.output.directory, w / "output" / "directory");
  o.get("strict", scene.strict);
  o.finish();
  return scene;
}

// 1-based line and column of a byte offset, for syntax errors.
std::pair<size_t, size_t> line_column(const std::string& text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < std::min(byte, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// A first pass over the text for what nlohmann's DOM parser cannot report
// with a JSON pointer: duplicate keys (the DOM silently keeps the last one, so
// the scene would not say what it seems to say) and numbers that overflow a
// double (1e400). Syntax errors are left to the second pass, which reports
// them with line and column.
class StrictnessCheck : public nlohmann::json_sax<json> {
 public:
  // `prefix`: the pointer of the text's root in the scene ("" for the file,
  // the target of --set for its value).
  StrictnessCheck(const std::string& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    open(true);
    return true;
  }
  bool key(string_t& key) override {
    Level& level = levels_.back();
    std::string escaped;
    for (char c : key) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    level.segment = escaped;
    if (!level.keys.insert(key).second)
      throw SceneError(file_, pointer(), "duplicate key \"" + key + "\" (a key may appear once per object)");
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    open(false);
    return true;
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // out_of_range 406 is "number overflow parsing '1e400'": the value that
    // overflowed is the one about to be stored at the current pointer.
    if (e.id == NUMBER_OVERFLOW_ID) {
      if (!levels_.empty() && !levels_.back().is_object) levels_.back().segment = std::to_string(levels_.back().count);
      throw SceneError(file_, pointer(), "number out of range: it overflows a double (largest about 1.8e308)");
    }
    return false;
  }

 private:
  static constexpr int NUMBER_OVERFLOW_ID = 406;
  struct Level {
    bool is_object = false;
    std::set<std::string> keys;
    std::string segment;  // the key (escaped) or index of the current member
    std::size_t count = 0;  // array elements so far
  };

  std::string pointer() const {
    std::string p = prefix_;
    for (const Level& level : levels_) p += "/" + level.segment;
    return p;
  }
  void open(bool is_object) {
    if (!levels_.empty() && !levels_.back().is_object) levels_.back().segment = std::to_string(levels_.back().count);
    levels_.push_back(Level{is_object, {}, {}, 0});
  }
  bool close() {
    levels_.pop_back();
    return value();
  }
  bool value() {
    if (!levels_.empty() && !levels_.back().is_object) ++levels_.back().count;
    return true;
  }

  const std::string& file_;
  const std::string prefix_;
  std::vector<Level> levels_;
};

json parse_json(const std::string& text, const std::string& file) {
  StrictnessCheck check(file, "");
  json::sax_parse(text, &check, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
  try {
    return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the offending character.
    const auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    what = pos == std::string::npos ? what : what.substr(pos);
    throw SceneError(SceneError::syntax, file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }
}

void apply_overrides(json& root, const std::vector<Override>& overrides, const std::string& file) {
  for (const Override& ov : overrides) {
    json value;
    // The value is JSON as much as the file is: the same duplicate-key and
    // overflow checks, with pointers below the --set target. Text that is
    // not JSON at all is a string (--set /coupling/alpha=auto).
    StrictnessCheck check(file, ov.pointer);
    json::sax_parse(ov.value, &check, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
    try {
      value = json::parse(ov.value);
    } catch (const json::parse_error&) {
      value = ov.value;
    }
    try {
      root[json::json_pointer(ov.pointer)] = value;
    } catch (const json::exception& e) {
      throw SceneError(file, ov.pointer, "cannot apply --set " + ov.pointer + "=" + ov.value + ": " + e.what());
    }
  }
}

// The inverse of read_scene, used for run.json.
json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }
json vec(const Vec3i& v) { return json::array({v[0], v[1], v[2]}); }

json shape_json(const Shape& s, ShapeUse use) {
  json j;
  switch (s.type) {
    case Shape::Type::box: j = {{"type", "box"}, {"min", vec(s.min)}, {"max", vec(s.max)}}; break;
    case Shape::Type::sphere: j = {{"type", "sphere"}, {"center", vec(s.center)}, {"radius", s.radius}}; break;
    case Shape::Type::obj: j = {{"type", "obj"}, {"path", s.path}}; break;
  }
  if (use == FLUID_REGION) j["velocity"] = vec(s.velocity);
  if (use == OBSTACLE) j["inside_out"] = s.inside_out;
  return j;
}

json mesh_json(const MeshDesc& m) {
  json j;
  switch (m.type) {
    case MeshDesc::Type::box:
      j = {{"type", "box"}, {"min", vec(m.min)}, {"max", vec(m.max)}, {"cells", vec(m.cells)}};
      break;
    case MeshDesc::Type::sphere:
      j = {{"type", "sphere"}, {"center", vec(m.center)}, {"radius", m.radius}, {"subdivisions", m.subdivisions}};
      break;
    case MeshDesc::Type::shell:
      j = {{"type", "shell"},           {"center", vec(m.center)},          {"outer_radius", m.outer_radius},
           {"inner_radius", m.inner_radius}, {"subdivisions", m.subdivisions}};
      break;
    case MeshDesc::Type::obj: j = {{"type", "obj"}, {"path", m.path}}; break;
  }
  if (m.type != MeshDesc::Type::box) {
    j["max_tet_volume"] = m.max_tet_volume;
    j["quality"] = m.quality;
  }
  j["transform"] = {{"translate", vec(m.transform.translate)},
                    {"rotate", vec(m.transform.rotate)},
                    {"scale", m.transform.scale}};
  return j;
}

}  // namespace

std::string closest_key(const std::string& key, const std::vector<std::string>& candidates) {
  // Optimal-string-alignment distance (edits and adjacent transpositions);
  // suggest only when at most about a third of the key differs.
  std::string best;
  size_t best_distance = std::max<size_t>(1, key.size() / 3) + 1;
  for (const std::string& c : candidates) {
    std::vector<std::vector<size_t>> d(key.size() + 1, std::vector<size_t>(c.size() + 1));
    for (size_t i = 0; i <= key.size(); ++i) d[i][0] = i;
    for (size_t k = 0; k <= c.size(); ++k) d[0][k] = k;
    for (size_t i = 1; i <= key.size(); ++i)
      for (size_t k = 1; k <= c.size(); ++k) {
        d[i][k] = std::min({d[i - 1][k] + 1, d[i][k - 1] + 1, d[i - 1][k - 1] + (key[i - 1] == c[k - 1] ? 0 : 1)});
        if (i > 1 && k > 1 && key[i - 1] == c[k - 2] && key[i - 2] == c[k - 1])
          d[i][k] = std::min(d[i][k], d[i - 2][k - 2] + 1);
      }
    if (d[key.size()][c.size()] < best_distance) {
      best_distance = d[key.size()][c.size()];
      best = c;
    }
  }
  return best;
}

Override parse_override(const std::string& argument) {
  const auto eq = argument.find('=');
  if (argument.empty() || argument[0] != '/' || eq == std::string::npos || eq == 1)
    throw SceneError("--set", argument, "expected /json/pointer=value, e.g. --set /solids/0/density=800");
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

Scene parse_scene(const std::string& text, const std::string& file, const std::string& directory,
                  const std::vector<Override>& overrides) {
  json root = parse_json(text, file);
  apply_overrides(root, overrides, file);
  return read_scene(root, file, directory);
}

Scene load_scene(const std::string& path, const std::vector<Override>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) throw MissingInputError(path + ": cannot read scene file");
  std::stringstream text;
  text << in.rdbuf();
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  return parse_scene(text.str(), path, dir.lexically_normal().string(), overrides);
}

std::string to_json(const Scene& s) {
  json j;
  j["grid"] = {{"resolution", vec(s.grid.resolution)}, {"origin", vec(s.grid.origin)}, {"cell_size", s.grid.cell_size}};
  j["time"] = {{"fps", s.time.fps}, {"frames", s.time.frames}, {"cfl", s.time.cfl}, {"max_substeps", s.time.max_substeps}};
  j["gravity"] = vec(s.gravity);
  j["fluid"] = {{"density", s.fluid.density}, {"particles_per_cell", s.fluid.particles_per_cell},
                {"seed", s.fluid.seed}, {"regions", json::array()}};
  for (const Shape& r : s.fluid.regions) j["fluid"]["regions"].push_back(shape_json(r, FLUID_REGION));
  j["obstacles"] = json::array();
  for (const Shape& r : s.obstacles) j["obstacles"].push_back(shape_json(r, OBSTACLE));
  j["solids"] = json::array();
  for (const SolidDesc& d : s.solids) {
    json sj = {{"name", d.name},
               {"mesh", mesh_json(d.mesh)},
               {"density", d.density},
               {"youngs_modulus", d.youngs_modulus},
               {"poisson_ratio", d.poisson_ratio},
               {"damping", {{"mass", d.damping.mass}, {"stiffness", d.damping.stiffness}}},
               {"velocity", vec(d.velocity)},
               {"pinned", json::array()},
               {"initial_scale", d.initial_scale}};
    for (const Shape& p : d.pinned) sj["pinned"].push_back(shape_json(p, PINNED));
    // Written only when not the default, so linear scenes' checkpoints keep their fingerprint.
    if (d.element == SolidDesc::Element::quadratic) sj["element"] = "quadratic";
    if (d.model == SolidDesc::Model::reduced) {
      sj["model"] = "reduced";
      sj["modes"] = d.modes;
    }
    j["solids"].push_back(sj);
  }
  j["coupling"] = {{"scheme", to_string(s.coupling.scheme)},
                   {"preconditioner", to_string(s.coupling.preconditioner)},
                   {"sigma", s.coupling.sigma},
                   {"tolerance", s.coupling.tolerance},
                   {"max_iterations", s.coupling.max_iterations},
                   {"allow_unconverged", s.coupling.allow_unconverged},
                   {"partitioned", {{"relaxation", s.coupling.partitioned.relaxation},
                                    {"tolerance", s.coupling.partitioned.tolerance},
                                    {"max_iterations", s.coupling.partitioned.max_iterations},
                                    {"recompute_geometry", s.coupling.partitioned.recompute_geometry}}}};
  // Only when not the default: checkpoints written before the key existed
  // fingerprint the scene without it and must keep resuming.
  if (s.coupling.partitioned.impulses == Partitioned::Impulses::conservative)
    j["coupling"]["partitioned"]["impulses"] = "conservative";
  j["coupling"]["alpha"] = s.coupling.alpha_auto ? json("auto") : json(s.coupling.alpha);
  j["output"] = {{"directory", s.output.directory},
                 {"liquid", s.output.liquid},
                 {"solids", s.output.solids},
                 {"checkpoint_every", s.output.checkpoint_every},
                 {"checkpoint_keep", s.output.checkpoint_keep},
                 {"up_axis", s.output.up_axis == Output::UpAxis::z ? "z" : "y"},
                 {"liquid_velocity", s.output.liquid_velocity},
                 {"liquid_particles", s.output.liquid_particles}};
  if (s.output.voxel_size) j["output"]["voxel_size"] = *s.output.voxel_size;
  j["strict"] = s.strict;
  return j.dump(2);
}

}  // namespace fsicut::scene
