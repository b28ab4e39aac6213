#pragma once
// The scene's static obstacles and obj fluid regions as levelset objects.
// The OBJ files the scene names are read with mesh::read_obj() and validated
// with mesh::check_closed_surface(); a bad file (or a surface the levelset
// refuses) throws MeshError / MissingInputError naming the OBJ, followed by
// " (used by <scene_file>: <shape pointer>)".
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "lib/levelset/mesh_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/mesh/mesh.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::sim {

// The union of the scene's box and sphere obstacles (inside_out honoured).
// `obj` obstacles are not handled here: pass their SDFs (obj_obstacle_solids)
// as `extra` (each entry is added to the union). Throws SimulationError when
// the scene has an obj obstacle and `extra` is empty.
levelset::StaticSolid static_solid(const std::vector<scene::Shape>& obstacles,
                                   std::vector<levelset::StaticSolid> extra = {});

// The `extra` solids for static_solid(): one levelset::mesh_solid(mesh,
// inside_out, band) per obj obstacle, in the obstacles' order.
std::vector<levelset::StaticSolid> obj_obstacle_solids(const std::vector<scene::Shape>& obstacles,
                                                       const std::string& scene_file,
                                                       Real band = std::numeric_limits<Real>::infinity());

// The triangle surfaces of the obstacles that can be thinner than a cell, for
// what a node distance field cannot show (cutcell/thin_solids.hpp, particle
// paths in sim/cutcell/particle_paths.hpp): each box (12 triangles) and obj obstacle, in the
// obstacles' order. Not included: inside-out
// obstacles (containers, solid everywhere outside the shape: never thin) and
// spheres (a ball is as thick as it is wide).
std::vector<levelset::MeshDistance> obstacle_surfaces(const std::vector<scene::Shape>& obstacles,
                                                      const std::string& scene_file);

// The `obj_regions` of fluid::make_liquid(): one levelset::mesh_region per obj
// fluid region, in order.
std::vector<std::function<bool(const Vec3&)>> obj_region_tests(const std::vector<scene::Shape>& regions,
                                                               const std::string& scene_file);

// A source's or drain's shape (fluid/sources, fluid/drains): its membership
// test and bounding box [m]. An obj shape's OBJ is read and checked as above.
struct ShapeTest {
  std::function<bool(const Vec3&)> inside;
  Vec3 min{0, 0, 0}, max{0, 0, 0};
};
ShapeTest shape_test(const scene::Shape& shape, const std::string& scene_file);

}  // namespace fsicut::sim
