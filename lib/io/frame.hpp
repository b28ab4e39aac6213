#pragma once
// The coordinate frame of the output files (scene key output/up_axis).
//
// fsicut simulates with +y up (gravity (0, -9.81, 0) by default), as Houdini,
// Maya and the OpenVDB tools expect. Blender is +z up: its OBJ importer turns
// a y-up file into z-up itself (its default Forward -Z, Up Y), but its VDB
// import applies no conversion, so y-up liquid and y-up solids come out
// turned against each other. UpAxis::z writes every output in Blender's frame
// instead, rotated +90 degrees about x:
//     (x, y, z)  ->  (x, -z, y)       (simulated +y becomes +z, +z becomes -y)
// a proper rotation (lengths and handedness kept, so level-set values and the
// OBJ triangles' outward winding stay valid). Import the OBJ files with
// Forward Y, Up Z (no conversion) to keep them aligned with the VDB.
#include "lib/core/types.hpp"

namespace fsicut::io {

enum class UpAxis { y, z };

// `points` (3 x n, simulation frame [m]) in the output frame of `up`.
inline Points to_output_frame(const Points& points, UpAxis up) {
  if (up == UpAxis::y) return points;
  Points out(3, points.cols());
  out.row(0) = points.row(0);
  out.row(1) = -points.row(2);
  out.row(2) = points.row(1);
  return out;
}

// One point or vector, simulation frame -> output frame, and back.
inline Vec3 to_output_frame(const Vec3& p, UpAxis up) { return up == UpAxis::y ? p : Vec3(p.x(), -p.z(), p.y()); }
inline Vec3 from_output_frame(const Vec3& p, UpAxis up) { return up == UpAxis::y ? p : Vec3(p.x(), p.z(), -p.y()); }

}  // namespace fsicut::io
