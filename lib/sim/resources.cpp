#include "lib/sim/resources.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"

namespace fsicut::sim {

using scene::MeshDesc;
using scene::Scene;
using scene::Shape;
using scene::SolidDesc;

namespace {

// Surface area per surface vertex under a volume bound a, in units of a^(2/3):
// a regular tet of volume a has edges (6 sqrt(2) a)^(1/3) = 2.04 a^(1/3),
// equilateral triangles of those edges 1.8 a^(2/3), and a closed surface has
// two triangles per vertex.
constexpr double SURFACE_PER_BOUNDED_VERTEX = 3.6;
// A structured box mesh splits each hexahedral cell into 6 tetrahedra.
constexpr double TETS_PER_BOX_CELL = 6;

// An OBJ file's vertex count and enclosed volume [m^3, the file's units], or
// nothing when it cannot be read as a surface.
struct ObjSize {
  double vertices = 0;
  double volume = 0;
  double area = 0;  // [m^2]
};
std::optional<ObjSize> obj_size(const std::string& path) {
  try {
    const mesh::SurfaceMesh surface = mesh::read_obj(path);
    double area = 0;
    for (const mesh::Triangle& t : surface.triangles) {
      const Vec3 a = surface.vertices.col(t[0]), b = surface.vertices.col(t[1]), c = surface.vertices.col(t[2]);
      area += 0.5 * (b - a).cross(c - a).norm();
    }
    return ObjSize{static_cast<double>(surface.vertices.cols()), std::abs(mesh::enclosed_volume(surface)), area};
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Vertices of an icosphere of level n: 10 * 4^n + 2.
double icosphere_vertices(int subdivisions) {
  return 10 * std::pow(4.0, std::clamp(subdivisions, 0, 16)) + 2;
}

void add_surface(ResourceEstimate& e, const std::string& pointer, double vertices) {
  e.terms.push_back({pointer + " surface", "vertices", pointer + "/path", vertices, vertices * BYTES_PER_SURFACE_VERTEX});
}

// The tets TetGen will make for `s` (docs/reliability.md).
void add_tetgen_solid(ResourceEstimate& e, const SolidDesc& s) {
  const MeshDesc& m = s.mesh;
  double vertices = 0, volume = 0, area = 0;
  std::string surface_key = m.pointer + "/subdivisions";
  switch (m.type) {
    case MeshDesc::Type::sphere:
      vertices = icosphere_vertices(m.subdivisions);
      volume = 4.0 / 3.0 * M_PI * std::pow(m.radius, 3);
      area = 4 * M_PI * m.radius * m.radius;
      break;
    case MeshDesc::Type::shell:
      vertices = 2 * icosphere_vertices(m.subdivisions);
      volume = 4.0 / 3.0 * M_PI * (std::pow(m.outer_radius, 3) - std::pow(m.inner_radius, 3));
      area = 4 * M_PI * (m.outer_radius * m.outer_radius + m.inner_radius * m.inner_radius);
      break;
    case MeshDesc::Type::obj: {
      const std::optional<ObjSize> size = obj_size(m.path);
      if (!size) return;
      add_surface(e, m.pointer, size->vertices);
      vertices = size->vertices, volume = size->volume, area = size->area;
      surface_key = m.pointer + "/path";
      break;
    }
    case MeshDesc::Type::box: return;
  }
  double by_bound = 0, per_vertex = TETGEN_TETS_PER_SURFACE_VERTEX;
  if (m.max_tet_volume > 0) {
    per_vertex = TETGEN_TETS_PER_SPLIT_SURFACE_VERTEX;
    by_bound = TETGEN_TETS_PER_BOUND * volume / m.max_tet_volume;
    // A volume bound also splits the surface triangles down to its size.
    vertices = std::max(vertices, area / (SURFACE_PER_BOUNDED_VERTEX * std::pow(m.max_tet_volume, 2.0 / 3.0)));
  }
  const double by_surface = per_vertex * vertices;
  const double tets = by_bound + by_surface;
  if (!std::isfinite(tets)) return;  // a non-finite value is refused by the mesh's own checks
  e.terms.push_back({"solid " + s.name, "tetrahedra", by_bound > by_surface ? m.pointer + "/max_tet_volume" : surface_key,
                     tets, tets * bytes_per_tet(s)});
}

double region_volume(const Shape& s, double grid_volume) {
  switch (s.type) {
    case Shape::Type::box: return (s.max - s.min).prod();
    case Shape::Type::sphere: return 4.0 / 3.0 * M_PI * s.radius * s.radius * s.radius;
    case Shape::Type::obj: return grid_volume;
  }
  return grid_volume;
}

// A cgroup memory limit file's value [bytes], or infinity for "max", a
// missing file or v1's "unlimited" (a page-rounded 2^63).
double limit_in(const std::filesystem::path& file) {
  constexpr double UNLIMITED = 1e18;
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return INFINITY;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && value > 0 && value < UNLIMITED ? value : INFINITY;
}

// The smallest memory limit of the control groups this process is in: its
// own group and every ancestor, cgroup v2 (memory.max) and v1
// (memory.limit_in_bytes), as /proc/self/cgroup names them. Slurm puts each
// job in its own group below the mount point; inside a container the group's
// path may not be visible, and the mount point's own file is the container's.
double cgroup_memory_limit() {
  namespace fs = std::filesystem;
  double limit = std::min(limit_in("/sys/fs/cgroup/memory.max"),
                          limit_in("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path".
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const fs::path group = fs::path(line.substr(second + 1)).relative_path();
    fs::path root, file;
    if (controllers.empty()) {
      root = "/sys/fs/cgroup", file = "memory.max";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      root = "/sys/fs/cgroup/memory", file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    for (fs::path p = group; !p.empty(); p = p.parent_path()) limit = std::min(limit, limit_in(root / p / file));
  }
  return limit;
}

}  // namespace

ResourceEstimate estimate_resources(const Scene& scene) {
  ResourceEstimate e;
  const Vec3 resolution = scene.grid.resolution.cast<Real>();
  const double cells = resolution.prod();
  const double dx = scene.grid.cell_size;
  const double grid_volume = cells * dx * dx * dx;
  e.terms.push_back({"grid", "cells", "/grid/resolution", cells, cells * BYTES_PER_CELL});

  double liquid_volume = 0;
  for (const Shape& r : scene.fluid.regions) liquid_volume += region_volume(r, grid_volume);
  liquid_volume = std::min(liquid_volume, grid_volume);
  const double particles = liquid_volume / (dx * dx * dx) * scene.fluid.particles_per_cell;
  e.terms.push_back({"particles", "particles", "/fluid/particles_per_cell", particles, particles * BYTES_PER_PARTICLE});

  if (scene.output.liquid && !scene.fluid.regions.empty()) {
    const double voxel = scene.output.voxel_size ? *scene.output.voxel_size : dx / 2;
    const double voxels = liquid_volume / (voxel * voxel * voxel);
    e.terms.push_back({"liquid VDB", "voxels", scene.output.voxel_size ? "/output/voxel_size" : "/grid/cell_size", voxels,
                       voxels * BYTES_PER_VDB_VOXEL});
  }
  for (const SolidDesc& s : scene.solids)
    if (s.mesh.type == MeshDesc::Type::box) {
      const double tets = s.mesh.cells.cast<Real>().prod() * TETS_PER_BOX_CELL;
      e.terms.push_back({"solid " + s.name, "tetrahedra", s.mesh.pointer + "/cells", tets, tets * bytes_per_tet(s)});
    } else {
      add_tetgen_solid(e, s);
    }
  for (const std::vector<Shape>* shapes : {&scene.fluid.regions, &scene.obstacles})
    for (const Shape& shape : *shapes)
      if (shape.type == Shape::Type::obj)
        if (const std::optional<ObjSize> size = obj_size(shape.path)) add_surface(e, shape.pointer, size->vertices);
  for (const ResourceTerm& t : e.terms) e.total_bytes += t.bytes;
  return e;
}

double available_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  const double physical = pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                                     : INFINITY;
  return std::min(physical, cgroup_memory_limit());
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 6) {
    bytes /= 1000;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, bytes < 10 && unit > 0 ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
  return text;
}

void check_resources(const Scene& scene, const ResourceEstimate& estimate, double limit_bytes,
                     const std::string& limit_source) {
  if (!(estimate.total_bytes > limit_bytes)) return;
  const auto largest = std::max_element(estimate.terms.begin(), estimate.terms.end(),
                                        [](const ResourceTerm& a, const ResourceTerm& b) { return a.bytes < b.bytes; });
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", largest->count);
  throw SceneError(scene.file, largest->pointer,
                   "the scene would need about " + format_bytes(estimate.total_bytes) + " of memory, " +
                       format_bytes(largest->bytes) + " of it for the " + largest->what + " (" + count + " " +
                       largest->unit + "), more than " + limit_source + " (" + format_bytes(limit_bytes) + ")");
}

std::string describe(const ResourceEstimate& estimate, double limit_bytes, const std::string& limit_source) {
  std::string text = "memory estimate: " + format_bytes(estimate.total_bytes) + " (limit " +
                     format_bytes(limit_bytes) + ", " + limit_source + ")\n";
  for (const ResourceTerm& t : estimate.terms) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-20s %10.3g %-10s %10s  %s\n", t.what.c_str(), t.count, t.unit.c_str(),
                  format_bytes(t.bytes).c_str(), t.pointer.c_str());
    text += line;
  }
  return text;
}

}  // namespace fsicut::sim
