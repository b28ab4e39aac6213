#include "lib/levelset/particle_buckets.hpp"

#include <algorithm>

#include <omp.h>

namespace fsicut::levelset {
namespace {

// Each thread's share of the cells in bucket_particles, in units of one plane of
// cells (k): a plane costs its particles (each read, placed once) and its cells
// (each cleared, summed, tested once); weighted alike.
std::vector<int> thread_planes(const std::vector<Index>& particles_per_plane, Index plane_cells, int threads) {
  const int planes = static_cast<int>(particles_per_plane.size());
  Index total = 0;
  for (Index n : particles_per_plane) total += n + plane_cells;
  std::vector<int> first(static_cast<std::size_t>(threads) + 1, planes);
  first[0] = 0;
  Index sum = 0;
  int t = 1;
  for (int k = 0; k < planes && t < threads; ++k) {
    sum += particles_per_plane[static_cast<std::size_t>(k)] + plane_cells;
    while (t < threads && sum * threads >= total * t) first[static_cast<std::size_t>(t++)] = k + 1;
  }
  return first;
}

}  // namespace

ParticleBuckets bucket_particles(const grid::MacGrid& grid, const Points& particles, int near_cells) {
  const Vec3i size = grid.cell_shape();
  const Index cells = grid.cell_count();
  const Index plane_cells = static_cast<Index>(size.x()) * size.y();
  const Index np = particles.cols();
  ParticleBuckets b;
  b.start.resize(static_cast<std::size_t>(cells) + 1);
  b.order.resize(static_cast<std::size_t>(np));
  b.near.resize(size);
  std::vector<Index> cell_of(static_cast<std::size_t>(np));
  std::vector<Index> per_plane(static_cast<std::size_t>(size.z()), 0);
  std::vector<int> first_plane;
  std::vector<Index> first_particle;
  // A stable counting sort in parallel, so the buckets are those of the serial
  // sort for any thread count: each thread owns a range of planes of cells,
  // counts and places (in particle order) the particles that fall in its cells,
  // and starts its positions after the particles of the planes before.
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    std::vector<Index> mine(static_cast<std::size_t>(size.z()), 0);
#pragma omp for schedule(static) nowait
    for (Index p = 0; p < np; ++p) {
      const Vec3i c = grid.cell_of(particles.col(p));
      cell_of[static_cast<std::size_t>(p)] = c.x() + size.x() * (c.y() + static_cast<Index>(size.y()) * c.z());
      ++mine[static_cast<std::size_t>(c.z())];
    }
#pragma omp critical(fsicut_bucket_planes)
    for (std::size_t k = 0; k < mine.size(); ++k) per_plane[k] += mine[k];
#pragma omp barrier
#pragma omp single
    {
      first_plane = thread_planes(per_plane, plane_cells, threads);
      first_particle.assign(static_cast<std::size_t>(threads) + 1, 0);
      for (int u = 0; u < threads; ++u) {
        Index n = 0;
        for (int k = first_plane[static_cast<std::size_t>(u)]; k < first_plane[static_cast<std::size_t>(u) + 1]; ++k)
          n += per_plane[static_cast<std::size_t>(k)];
        first_particle[static_cast<std::size_t>(u) + 1] = first_particle[static_cast<std::size_t>(u)] + n;
      }
      b.start[static_cast<std::size_t>(cells)] = np;
    }
    const Index lo = first_plane[static_cast<std::size_t>(t)] * plane_cells;
    const Index hi = first_plane[static_cast<std::size_t>(t) + 1] * plane_cells;
    Index* start = b.start.data();
    // start[c]: first the count of cell c, then the end of its bucket, then
    // (placing the particles backwards) its beginning.
    std::fill(start + lo, start + hi, 0);
    for (Index p = 0; p < np; ++p) {
      const Index c = cell_of[static_cast<std::size_t>(p)];
      if (c >= lo && c < hi) ++start[c];
    }
    Index end = first_particle[static_cast<std::size_t>(t)];
    for (Index c = lo; c < hi; ++c) start[c] = end += start[c];
    for (Index p = np - 1; p >= 0; --p) {
      const Index c = cell_of[static_cast<std::size_t>(p)];
      if (c >= lo && c < hi) b.order[static_cast<std::size_t>(--start[c])] = p;
    }
    // The end of the range's last bucket is the next range's beginning, which
    // that range's thread may not have written yet.
    for (Index c = lo; c < hi; ++c)
      b.near[c] = (c + 1 < hi ? start[c + 1] : first_particle[static_cast<std::size_t>(t) + 1]) > start[c];
  }
  grid::dilate(b.near, near_cells);
  return b;
}

}  // namespace fsicut::levelset
