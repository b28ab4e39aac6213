// Writes meshes/dino.obj, the toy dinosaur of scenes/paper/light_dino.json:
//   fsicut_dino_mesh OUT.obj [VOXEL]
// The paper's dino is a Houdini model we cannot ship, so this one is ours
// (CC0): a smooth union of an ellipsoidal body and capsules (neck, head, tail,
// four legs) sampled as a signed distance on a voxel grid and turned into a
// closed, manifold, outward-facing triangle surface by OpenVDB's volumeToMesh.
// About 0.48 m nose to tail, feet at y = 0, centred on z = 0.
#include <openvdb/openvdb.h>
#include <openvdb/tools/SignedFloodFill.h>
#include <openvdb/tools/VolumeToMesh.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using V = openvdb::Vec3d;

// Default voxel edge [m]: sets the surface resolution (866 vertices, which
// TetGen fills to about Table 1's 1424 nodes).
constexpr double VOXEL = 0.019;
// Narrow band half-width in voxels; volumeToMesh needs a few on each side.
constexpr double BAND = 3;
// Blend radius of the smooth union [m]: rounds the joints like a moulded toy.
constexpr double BLEND = 0.03;

double capsule(const V& p, const V& a, const V& b, double ra, double rb) {
  const V ab = b - a;
  const double t = std::clamp((p - a).dot(ab) / ab.dot(ab), 0.0, 1.0);
  return (p - (a + t * ab)).length() - (ra + t * (rb - ra));
}

// Not an exact distance off the axes, but a level set with the right zero crossing.
double ellipsoid(const V& p, const V& c, const V& r) {
  const V q = p - c;
  const V s(q.x() / r.x(), q.y() / r.y(), q.z() / r.z());
  return (s.length() - 1) * std::min({r.x(), r.y(), r.z()});
}

double smooth_min(double a, double b) {
  const double h = std::clamp(0.5 + 0.5 * (b - a) / BLEND, 0.0, 1.0);
  return b + h * (a - b) - BLEND * h * (1 - h);
}

double dino(const V& p) {
  double d = ellipsoid(p, V(0, 0.17, 0), V(0.12, 0.07, 0.065));
  d = smooth_min(d, capsule(p, V(0.08, 0.2, 0), V(0.15, 0.3, 0), 0.035, 0.025));     // neck
  d = smooth_min(d, capsule(p, V(0.15, 0.31, 0), V(0.21, 0.3, 0), 0.035, 0.025));    // head
  d = smooth_min(d, capsule(p, V(-0.09, 0.17, 0), V(-0.25, 0.12, 0), 0.045, 0.015)); // tail
  for (double x : {-0.06, 0.06})
    for (double z : {-0.04, 0.04})
      d = smooth_min(d, capsule(p, V(x, 0.15, z), V(x, 0.03, z), 0.03, 0.03));        // legs
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT.obj [VOXEL]\n", argv[0]);
    return 64;
  }
  const double voxel = argc == 3 ? std::atof(argv[2]) : VOXEL;
  openvdb::initialize();
  const double background = BAND * voxel;
  auto grid = openvdb::FloatGrid::create(static_cast<float>(background));
  grid->setTransform(openvdb::math::Transform::createLinearTransform(voxel));
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  auto acc = grid->getAccessor();
  // Bounds of the shape [m], padded by the band.
  const V lo_m(-0.35, -0.08, -0.18), hi_m(0.32, 0.42, 0.18);
  const openvdb::Coord lo = openvdb::Coord::floor(lo_m / voxel), hi = openvdb::Coord::floor(hi_m / voxel) + openvdb::Coord(1);
  for (int i = lo.x(); i <= hi.x(); ++i)
    for (int j = lo.y(); j <= hi.y(); ++j)
      for (int k = lo.z(); k <= hi.z(); ++k) {
        const double d = dino(V(i, j, k) * voxel);
        if (std::abs(d) < background) acc.setValue(openvdb::Coord(i, j, k), static_cast<float>(d));
      }
  // Marks the inside of the band negative, as a level set must be.
  openvdb::tools::signedFloodFill(grid->tree());

  std::vector<openvdb::Vec3s> points;
  std::vector<openvdb::Vec3I> tris;
  std::vector<openvdb::Vec4I> quads;
  openvdb::tools::volumeToMesh(*grid, points, tris, quads, 0.0, 0.0);
  for (const auto& q : quads) {
    tris.emplace_back(q[0], q[1], q[2]);
    tris.emplace_back(q[0], q[2], q[3]);
  }
  // Feet on y = 0.
  float ymin = points[0].y();
  for (const auto& p : points) ymin = std::min(ymin, p.y());
  // fsicut wants counter-clockwise seen from outside: flip if the volume is negative.
  double volume = 0;
  for (const auto& t : tris) volume += points[t[0]].dot(points[t[1]].cross(points[t[2]])) / 6.0;
  FILE* f = std::fopen(argv[1], "w");
  if (!f) {
    std::perror(argv[1]);
    return 73;
  }
  std::fprintf(f, "# Toy dinosaur for scenes/paper/light_dino.json, made by meshes/dino.cpp (CC0).\n");
  std::fprintf(f, "# %zu vertices, %zu triangles, volume %.6g m^3\n", points.size(), tris.size(), std::abs(volume));
  for (const auto& p : points) std::fprintf(f, "v %.9g %.9g %.9g\n", p.x(), p.y() - ymin, p.z());
  for (const auto& t : tris) {
    if (volume > 0) std::fprintf(f, "f %u %u %u\n", t[0] + 1, t[1] + 1, t[2] + 1);
    else std::fprintf(f, "f %u %u %u\n", t[0] + 1, t[2] + 1, t[1] + 1);
  }
  std::fclose(f);
  return 0;
}
