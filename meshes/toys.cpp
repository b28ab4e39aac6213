// Writes the toy meshes of meshes/ (all ours, CC0), each a smooth union of
// ellipsoids and capsules sampled as a signed distance on a voxel grid and
// turned into a closed, manifold, outward-facing triangle surface by
// OpenVDB's volumeToMesh, standing on y = 0:
//   fsicut_toy_mesh NAME OUT.obj [VOXEL]
// NAME is one of
//   dino     scenes/paper/light_dino.json (the paper's dino is a Houdini model
//            we cannot ship): body, neck, head, tail, four legs; 0.48 m long
//   bunny    the Eulerian bunnies (scenes/eulerian_bunny_*.json; the paper's
//            is the Stanford bunny): body, head, two ears, tail; 0.3 m tall
//   cheb     scenes/eulerian_cheb.json (the paper's Cheburashka): body,
//            head, two large round ears, two feet; 0.36 m tall
//   duck     scenes/eulerian_party.json: body, head, beak, two wings
//   penguin  scenes/eulerian_party.json: body, head, beak, two flippers, feet; every
//            part at least 1.5 cells of the party's grid thick (Eulerian solids need it)
#include <openvdb/openvdb.h>
#include <openvdb/tools/SignedFloodFill.h>
#include <openvdb/tools/VolumeToMesh.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using V = openvdb::Vec3d;

// Default voxel edge [m]: sets the surface resolution (the dino's 866
// vertices, which TetGen fills to about Zarifi & Batty's Table 1's 1424 nodes).
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

double bunny(const V& p) {
  double d = ellipsoid(p, V(0, 0.1, 0), V(0.11, 0.09, 0.08));                           // body
  d = smooth_min(d, ellipsoid(p, V(0.09, 0.18, 0), V(0.06, 0.055, 0.05)));              // head
  for (double z : {-0.028, 0.028})
    d = smooth_min(d, capsule(p, V(0.08, 0.22, z), V(0.06, 0.3, 1.8 * z), 0.026, 0.02));  // ears
  d = smooth_min(d, ellipsoid(p, V(-0.11, 0.09, 0), V(0.03, 0.03, 0.03)));              // tail
  return d;
}

double cheb(const V& p) {
  double d = ellipsoid(p, V(0, 0.11, 0), V(0.08, 0.09, 0.07));                          // body
  d = smooth_min(d, ellipsoid(p, V(0, 0.24, 0), V(0.07, 0.065, 0.065)));                // head
  for (double x : {-1.0, 1.0}) {
    d = smooth_min(d, ellipsoid(p, V(0.1 * x, 0.3, 0), V(0.05, 0.055, 0.018)));         // ears
    d = smooth_min(d, capsule(p, V(0.04 * x, 0.05, 0.01), V(0.045 * x, 0.02, 0.04), 0.025, 0.02)); // feet
  }
  return d;
}

double duck(const V& p) {
  double d = ellipsoid(p, V(0, 0.07, 0), V(0.1, 0.065, 0.07));                          // body
  d = smooth_min(d, ellipsoid(p, V(0.08, 0.16, 0), V(0.045, 0.045, 0.045)));            // head
  d = smooth_min(d, ellipsoid(p, V(0.13, 0.155, 0), V(0.035, 0.02, 0.03)));             // beak
  for (double z : {-1.0, 1.0})
    d = smooth_min(d, ellipsoid(p, V(-0.01, 0.1, 0.06 * z), V(0.065, 0.03, 0.03)));     // wings
  return d;
}

double penguin(const V& p) {
  double d = ellipsoid(p, V(0, 0.11, 0), V(0.06, 0.1, 0.055));                          // body
  d = smooth_min(d, ellipsoid(p, V(0, 0.22, 0), V(0.04, 0.04, 0.04)));                  // head
  d = smooth_min(d, capsule(p, V(0.03, 0.22, 0), V(0.065, 0.215, 0), 0.02, 0.014));     // beak
  for (double z : {-1.0, 1.0}) {
    d = smooth_min(d, capsule(p, V(0, 0.16, 0.055 * z), V(-0.01, 0.07, 0.075 * z), 0.022, 0.018)); // flippers
    d = smooth_min(d, ellipsoid(p, V(0.02, 0.02, 0.025 * z), V(0.035, 0.02, 0.022)));  // feet
  }
  return d;
}

struct Toy {
  const char* name;
  double (*distance)(const V&);
  V lo, hi;  // bounds of the shape [m], padded by the band
  const char* title;
};

const Toy TOYS[] = {
    {"dino", dino, V(-0.35, -0.08, -0.18), V(0.32, 0.42, 0.18), "Toy dinosaur for scenes/paper/light_dino.json"},
    {"bunny", bunny, V(-0.2, -0.05, -0.15), V(0.2, 0.36, 0.15), "Toy bunny for scenes/eulerian_bunny_*.json"},
    {"cheb", cheb, V(-0.2, -0.05, -0.15), V(0.2, 0.4, 0.15), "Toy Cheburashka for scenes/eulerian_cheb.json"},
    {"duck", duck, V(-0.15, -0.05, -0.15), V(0.22, 0.25, 0.15), "Toy duck for scenes/eulerian_party.json"},
    {"penguin", penguin, V(-0.12, -0.05, -0.14), V(0.12, 0.3, 0.14), "Toy penguin for scenes/eulerian_party.json"},
};

}  // namespace

int main(int argc, char** argv) {
  const Toy* toy = nullptr;
  for (const Toy& t : TOYS)
    if (argc >= 3 && std::strcmp(argv[1], t.name) == 0) toy = &t;
  if (argc < 3 || argc > 4 || !toy) {
    std::fprintf(stderr, "usage: %s dino|bunny|cheb|duck|penguin OUT.obj [VOXEL]\n", argv[0]);
    return 64;
  }
  const double voxel = argc == 4 ? std::atof(argv[3]) : VOXEL;
  openvdb::initialize();
  const double background = BAND * voxel;
  auto grid = openvdb::FloatGrid::create(static_cast<float>(background));
  grid->setTransform(openvdb::math::Transform::createLinearTransform(voxel));
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  auto acc = grid->getAccessor();
  const openvdb::Coord lo = openvdb::Coord::floor(toy->lo / voxel),
                       hi = openvdb::Coord::floor(toy->hi / voxel) + openvdb::Coord(1);
  for (int i = lo.x(); i <= hi.x(); ++i)
    for (int j = lo.y(); j <= hi.y(); ++j)
      for (int k = lo.z(); k <= hi.z(); ++k) {
        const double d = toy->distance(V(i, j, k) * voxel);
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
  FILE* f = std::fopen(argv[2], "w");
  if (!f) {
    std::perror(argv[2]);
    return 73;
  }
  std::fprintf(f, "# %s, made by meshes/toys.cpp (CC0).\n", toy->title);
  std::fprintf(f, "# %zu vertices, %zu triangles, volume %.6g m^3\n", points.size(), tris.size(), std::abs(volume));
  for (const auto& p : points) std::fprintf(f, "v %.9g %.9g %.9g\n", p.x(), p.y() - ymin, p.z());
  for (const auto& t : tris) {
    if (volume > 0) std::fprintf(f, "f %u %u %u\n", t[0] + 1, t[1] + 1, t[2] + 1);
    else std::fprintf(f, "f %u %u %u\n", t[0] + 1, t[2] + 1, t[1] + 1);
  }
  std::fclose(f);
  return 0;
}
