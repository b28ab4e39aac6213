#include "lib/sim/cutcell/obstacles.hpp"

#include <utility>

#include "lib/core/error.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"

namespace fsicut::sim {

namespace {

// Reads and validates the OBJ of a scene shape and makes `make(surface)`;
// errors of both name the scene pointer.
template <class Make>
auto from_obj(const scene::Shape& shape, const std::string& scene_file, Make make) {
  const std::string context = " (used by " + scene_file + ": " + shape.pointer + ")";
  try {
    const mesh::SurfaceMesh surface = mesh::read_obj(shape.path);
    mesh::check_closed_surface(surface, shape.path);
    return make(surface);
  } catch (const MeshError& e) {
    throw MeshError(e.what() + context);
  } catch (const MissingInputError& e) {
    throw MissingInputError(e.what() + context);
  }
}

}  // namespace

levelset::StaticSolid static_solid(const std::vector<scene::Shape>& obstacles,
                                   std::vector<levelset::StaticSolid> extra) {
  std::vector<levelset::StaticSolid> parts;
  bool has_obj = false;
  for (const auto& s : obstacles) {
    switch (s.type) {
      case scene::Shape::Type::box: parts.push_back(levelset::box_solid(s.min, s.max, s.inside_out)); break;
      case scene::Shape::Type::sphere:
        parts.push_back(levelset::sphere_solid(s.center, s.radius, s.inside_out));
        break;
      case scene::Shape::Type::obj: has_obj = true; break;
    }
  }
  if (has_obj && extra.empty())
    throw SimulationError("obj obstacles need a mesh signed distance (pass it as `extra`)");
  for (auto& e : extra) parts.push_back(std::move(e));
  return levelset::union_solid(std::move(parts));
}

std::vector<levelset::StaticSolid> obj_obstacle_solids(const std::vector<scene::Shape>& obstacles,
                                                       const std::string& scene_file, Real band) {
  std::vector<levelset::StaticSolid> solids;
  for (const scene::Shape& s : obstacles)
    if (s.type == scene::Shape::Type::obj)
      solids.push_back(from_obj(
          s, scene_file, [&](const mesh::SurfaceMesh& m) { return levelset::mesh_solid(m, s.inside_out, band); }));
  return solids;
}

std::vector<levelset::MeshDistance> obstacle_surfaces(const std::vector<scene::Shape>& obstacles,
                                                      const std::string& scene_file) {
  std::vector<levelset::MeshDistance> out;
  for (const scene::Shape& s : obstacles) {
    if (s.inside_out) continue;
    if (s.type == scene::Shape::Type::box) {
      const mesh::TetMesh box = mesh::box_mesh(s.min, s.max, Vec3i::Ones());
      out.emplace_back(box.rest, box.boundary);
    } else if (s.type == scene::Shape::Type::obj) {
      out.push_back(
          from_obj(s, scene_file, [](const mesh::SurfaceMesh& m) { return levelset::MeshDistance(m); }));
    }
  }
  return out;
}

std::vector<std::function<bool(const Vec3&)>> obj_region_tests(const std::vector<scene::Shape>& regions,
                                                               const std::string& scene_file) {
  std::vector<std::function<bool(const Vec3&)>> tests;
  for (const scene::Shape& r : regions)
    if (r.type == scene::Shape::Type::obj)
      tests.push_back(from_obj(r, scene_file, [](const mesh::SurfaceMesh& m) { return levelset::mesh_region(m); }));
  return tests;
}

ShapeTest shape_test(const scene::Shape& shape, const std::string& scene_file) {
  switch (shape.type) {
    case scene::Shape::Type::box: {
      const Vec3 lo = shape.min, hi = shape.max;
      return {[lo, hi](const Vec3& x) { return (x.array() >= lo.array()).all() && (x.array() <= hi.array()).all(); },
              lo, hi};
    }
    case scene::Shape::Type::sphere: {
      const Vec3 c = shape.center;
      const Real r = shape.radius;
      return {[c, r](const Vec3& x) { return (x - c).squaredNorm() <= r * r; }, c.array() - r, c.array() + r};
    }
    case scene::Shape::Type::obj: break;
  }
  return from_obj(shape, scene_file, [](const mesh::SurfaceMesh& m) {
    return ShapeTest{levelset::mesh_region(m), m.vertices.rowwise().minCoeff(), m.vertices.rowwise().maxCoeff()};
  });
}

}  // namespace fsicut::sim
