#include "lib/levelset/particle_interior.hpp"

#include <algorithm>
#include <cmath>

namespace fsicut::levelset {
namespace {

// Boxes past this many cells (particles spread over a huge domain) get no deep
// cells at all: every particle is then rasterized, as if there were no
// interior, rather than spending more memory than the particles themselves.
constexpr double MAX_CELLS = 1 << 30;

}  // namespace

ParticleInterior::ParticleInterior(const Points& particles, Real cell, int min_count) : cell_(cell) {
  if (particles.cols() == 0) return;
  const Vec3 lo = particles.rowwise().minCoeff() / cell, hi = particles.rowwise().maxCoeff() / cell;
  // One empty layer on each side: a full cell on the box's edge is never deep.
  const Vec3 first = lo.array().floor() - 1, last = hi.array().floor() + 1;
  const Vec3 extent = last - first + Vec3::Ones();
  if (extent.prod() > MAX_CELLS) return;
  lo_ = first.cast<int>();
  shape_ = extent.cast<int>();

  std::vector<std::uint8_t> count(static_cast<std::size_t>(shape_.prod()), 0);
  for (Index p = 0; p < particles.cols(); ++p) {
    const Vec3i c = (particles.col(p) / cell).array().floor().cast<int>().matrix() - lo_;
    std::uint8_t& n = count[at(c.x(), c.y(), c.z())];
    if (n < 255) ++n;
  }
  deep_.assign(count.size(), 0);
  const auto full = [&](int i, int j, int k) { return count[at(i, j, k)] >= min_count; };
  for (int k = 1; k + 1 < shape_.z(); ++k)
    for (int j = 1; j + 1 < shape_.y(); ++j)
      for (int i = 1; i + 1 < shape_.x(); ++i) {
        bool all = true;
        for (int dk = -1; dk <= 1 && all; ++dk)
          for (int dj = -1; dj <= 1 && all; ++dj)
            for (int di = -1; di <= 1 && all; ++di) all = full(i + di, j + dj, k + dk);
        deep_[at(i, j, k)] = all;
      }
}

bool ParticleInterior::deep(const Vec3i& c) const {
  const Vec3i local = c - lo_;
  if ((local.array() < 0).any() || (local.array() >= shape_.array()).any()) return false;
  return deep_[at(local.x(), local.y(), local.z())] != 0;
}

bool ParticleInterior::covers_ball(const Vec3& p, Real r) const {
  if (deep_.empty()) return false;
  const Vec3i a = ((p.array() - r) / cell_).floor().cast<int>().matrix();
  const Vec3i b = ((p.array() + r) / cell_).floor().cast<int>().matrix();
  for (int k = a.z(); k <= b.z(); ++k)
    for (int j = a.y(); j <= b.y(); ++j)
      for (int i = a.x(); i <= b.x(); ++i)
        if (!deep(Vec3i(i, j, k))) return false;
  return true;
}

std::vector<Index> ParticleInterior::surface_particles(const Points& particles, Real r) const {
  std::vector<Index> kept;
  for (Index p = 0; p < particles.cols(); ++p)
    if (!covers_ball(particles.col(p), r)) kept.push_back(p);
  return kept;
}

std::vector<ParticleInterior::Run> ParticleInterior::deep_runs() const {
  std::vector<Run> runs;
  if (deep_.empty()) return runs;
  for (int k = 0; k < shape_.z(); ++k)
    for (int j = 0; j < shape_.y(); ++j)
      for (int i = 0; i < shape_.x();) {
        if (!deep_[at(i, j, k)]) {
          ++i;
          continue;
        }
        Run run{lo_ + Vec3i(i, j, k), 0};
        while (i < shape_.x() && deep_[at(i, j, k)]) ++i, ++run.length;
        runs.push_back(run);
      }
  return runs;
}

}  // namespace fsicut::levelset
