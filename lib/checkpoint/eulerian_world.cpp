#include "lib/checkpoint/eulerian_world.hpp"

#include <algorithm>

#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/values.hpp"

namespace fsicut::checkpoint {
namespace {

std::string solid_name(const std::vector<std::string>& names, std::size_t l) {
  return "solid \"" + (l < names.size() ? names[l] : std::to_string(l)) + "\"";
}

void put_solid(ByteWriter& w, const eulerian::EulerianSolid& s) {
  put_values(w, s.u);
  put_values(w, s.v);
  put_values(w, s.valid);
  put_values(w, s.pressure);
}

void get_solid(ByteReader& r, eulerian::EulerianSolid& s, const std::string& name) {
  get_vector(r, s.u, name + "'s displacement");
  get_vector(r, s.v, name + "'s velocity");
  const std::vector<char> valid = get_values<char>(r, name + "'s valid nodes");
  if (valid.size() != s.valid.size()) throw_mismatch(r.where(), name + "'s valid nodes do not fit the scene's grid");
  s.valid = valid;
  s.pressure = get_vector(r, name + "'s pressure");
}

}  // namespace

void put(ByteWriter& w, const eulerian::World& world) {
  put_values(w, world.velocity);
  put_values(w, world.pressure);
  w.u32(static_cast<std::uint32_t>(world.solids.size()));
  for (const eulerian::EulerianSolid& s : world.solids) put_solid(w, s);
  w.u8(world.smoke ? 1 : 0);
  if (!world.smoke) return;
  const grid::Array3<Real>& d = world.smoke->density;
  put_values(w, d.data());
  put_values(w, world.smoke->velocity);
}

void get(ByteReader& r, eulerian::World& world, const std::vector<std::string>& names) {
  get_vector(r, world.velocity, "velocity");
  world.pressure = get_vector(r, "pressure");
  const std::uint32_t solids = r.u32();
  if (solids > r.remaining()) r.fail("more solids than the data holds");
  if (solids != world.solids.size())
    throw_mismatch(r.where(), std::to_string(solids) + " Eulerian solids in the checkpoint, " +
                                  std::to_string(world.solids.size()) + " in the scene");
  for (std::size_t l = 0; l < world.solids.size(); ++l) get_solid(r, world.solids[l], solid_name(names, l));
  const bool smoke = r.u8() != 0;
  if (smoke != world.smoke.has_value())
    throw_mismatch(r.where(),
                   smoke ? "the checkpoint has smoke, the scene none" : "the scene has smoke, the checkpoint none");
  if (!smoke) return;
  grid::Array3<Real>& d = world.smoke->density;
  const std::vector<double> density = get_values<double>(r, "smoke density");
  if (static_cast<Index>(density.size()) != d.count())
    throw_mismatch(r.where(), "the smoke density does not fit the scene's grid");
  std::copy(density.begin(), density.end(), d.data().begin());
  get_vector(r, world.smoke->velocity, "smoke velocity");
}

void put_plastic(ByteWriter& w, const eulerian::World& world) {
  const bool plastic = std::any_of(world.solids.begin(), world.solids.end(), [](const eulerian::EulerianSolid& s) {
    return s.plastic && !s.plastic->samples.empty();
  });
  if (!plastic) return;
  w.u32(static_cast<std::uint32_t>(world.solids.size()));
  for (const eulerian::EulerianSolid& s : world.solids) {
    const std::size_t n = s.plastic ? s.plastic->samples.size() : 0;
    w.u64(9 * n);
    for (std::size_t k = 0; k < n; ++k) w.raw(s.plastic->samples[k].data(), 9 * sizeof(Real));
  }
}

void get_plastic(ByteReader& r, eulerian::World& world, const std::vector<std::string>& names) {
  const bool stored = r.remaining() > 0;
  if (stored && r.u32() != world.solids.size()) r.fail("plastic strain: not one record per solid");
  for (std::size_t l = 0; l < world.solids.size(); ++l) {
    eulerian::EulerianSolid& s = world.solids[l];
    const std::vector<double> from = stored ? get_values<double>(r, "solid plastic strain") : std::vector<double>{};
    const std::size_t expected = s.plastic ? 9 * s.plastic->samples.size() : 0;
    if (from.size() != expected)
      throw_mismatch(r.where(), solid_name(names, l) + "'s plastic strain has " + std::to_string(from.size()) +
                                    " values in the checkpoint, " + std::to_string(expected) + " in the scene");
    for (std::size_t n = 0; 9 * n < from.size(); ++n)
      s.plastic->samples[n] = Eigen::Map<const eulerian::Mat3>(from.data() + 9 * n);
  }
}

}  // namespace fsicut::checkpoint
