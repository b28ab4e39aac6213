#include "lib/scene/read_probes.hpp"

#include <cctype>
#include <sstream>

#include "lib/scene/names.hpp"

namespace fsicut::scene {
namespace {

// Probe names become CSV column headers, `<name>` or `<name>.dx`: no commas,
// quotes or dots, and short enough to read in a plot legend.
constexpr std::size_t MAX_PROBE_NAME_LENGTH = 64;

void check_name(const std::string& name, const Where& at) {
  if (name.empty()) at.fail("must not be empty");
  if (name.size() > MAX_PROBE_NAME_LENGTH)
    at.fail("is " + std::to_string(name.size()) + " characters long; at most " + std::to_string(MAX_PROBE_NAME_LENGTH));
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      at.fail("\"" + name + "\" names columns of probes.csv: use letters, digits, '_' and '-' only");
  if (name == "time") at.fail("\"time\" is the first column of probes.csv");
}

// A gauge's `position`: [x, z], or a vertical segment [[x, y0, z], [x, y1, z]].
void read_gauge_position(const json& j, const Where& w, const Grid& grid, Probe& p) {
  if (j.is_array() && j.size() == 2 && j[0].is_number()) {
    Real x = 0, z = 0;
    Object::read(j[0], w / 0, x);
    Object::read(j[1], w / 1, z);
    p.position = Vec3(x, grid.origin.y(), z);
    p.top = grid.max().y();
    return;
  }
  if (!j.is_array() || j.size() != 2)
    w.fail("expected [x, z] or a vertical segment [[x, y0, z], [x, y1, z]], got " + type_name(j));
  Vec3 a, b;
  Object::read(j[0], w / 0, a);
  Object::read(j[1], w / 1, b);
  if (a.x() != b.x() || a.z() != b.z()) w.fail("a gauge's segment must be vertical: both ends need the same x and z");
  if (!(b.y() > a.y())) (w / 1 / 1).fail("the segment's second end must lie above its first (y1 > y0)");
  p.position = a;
  p.top = b.y();
}

// Where a probe reads must lie in the grid (a pressure probe's point, a
// gauge's x and z, and part of its segment): outside it, it would read 0 or
// a clamped neighbour's value.
void check_in_grid(const Probe& p, const Where& w, const Grid& grid) {
  const Vec3 lo = grid.origin, hi = grid.max();
  for (int a = 0; a < 3; ++a) {
    const bool outside = p.type == Probe::Type::gauge && a == 1 ? p.top <= lo.y() || p.position.y() >= hi.y()
                                                                 : p.position[a] < lo[a] || p.position[a] > hi[a];
    if (!outside) continue;
    std::ostringstream s;
    s << "lies outside the grid [" << lo.transpose() << "] - [" << hi.transpose() << "] along axis " << a
      << ": a probe there reads nothing";
    w.fail(s.str());
  }
}

Probe read_probe(const json& j, const Where& w, const Grid& grid, const std::vector<SolidDesc>& solids) {
  Object o(j, w);
  Probe p;
  p.pointer = w.pointer;
  o.require("name", p.name, check_name);
  p.type = read_enum(o, "type", names<Probe::Type>(), true, Probe::Type::pressure);
  if (!o.has("position")) w.fail("missing required key \"position\"");
  if (p.type == Probe::Type::gauge) read_gauge_position(o.at("position"), w / "position", grid, p);
  else o.get("position", p.position);
  if (p.type != Probe::Type::point) check_in_grid(p, w / "position", grid);
  if (p.type == Probe::Type::point) {
    o.require("solid", p.solid);
    bool found = false;
    for (const SolidDesc& s : solids) found = found || s.name == p.solid;
    if (!found) (w / "solid").fail("no solid is named \"" + p.solid + "\"");
  }
  o.finish();
  return p;
}

}  // namespace

std::vector<Probe> read_probes(const json& j, const Where& w, const Grid& grid, const std::vector<SolidDesc>& solids) {
  std::vector<Probe> probes = read_array<Probe>(
      j, w, [&](const json& p, const Where& at) { return read_probe(p, at, grid, solids); });
  for (std::size_t i = 0; i < probes.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (probes[i].name == probes[k].name)
        (w / i / "name").fail("duplicate probe name \"" + probes[i].name + "\" (also " + probes[k].pointer + ")");
  return probes;
}

}  // namespace fsicut::scene
