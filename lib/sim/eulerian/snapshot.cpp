// The Eulerian simulator's part of a checkpoint: section EULR
// (checkpoint/format.hpp); sim/eulerian/simulator.hpp says what is stored.
#include <algorithm>

#include "lib/checkpoint/format.hpp"
#include "lib/sim/eulerian/simulator.hpp"

namespace fsicut::sim {
namespace {

std::vector<double> values(const eulerian::Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

// F_p of a plastic solid, 9 values per material sample; empty for an elastic one.
std::vector<double> plastic_values(const eulerian::EulerianSolid& s) {
  std::vector<double> out;
  if (!s.plastic) return out;
  for (const eulerian::Mat3& Fp : s.plastic->samples) out.insert(out.end(), Fp.data(), Fp.data() + 9);
  return out;
}

void restore_plastic(const std::vector<double>& from, eulerian::EulerianSolid& s, const std::string& where,
                     const std::string& name) {
  const std::size_t expected = s.plastic ? 9 * s.plastic->samples.size() : 0;
  if (from.size() != expected)
    checkpoint::throw_mismatch(where, name + "'s plastic strain has " + std::to_string(from.size()) +
                                          " values in the checkpoint, " + std::to_string(expected) + " in the scene");
  for (std::size_t n = 0; 9 * n < from.size(); ++n)
    s.plastic->samples[n] = Eigen::Map<const eulerian::Mat3>(from.data() + 9 * n);
}

// `to` keeps its size, which the scene fixed; a record of another size does not fit.
void restore_values(const std::vector<double>& from, eulerian::Vector& to, const std::string& where,
                    const std::string& name) {
  if (static_cast<Index>(from.size()) != to.size())
    checkpoint::throw_mismatch(where, name + " has " + std::to_string(from.size()) + " values in the checkpoint, " +
                                          std::to_string(to.size()) + " in the scene");
  to = Eigen::Map<const eulerian::Vector>(from.data(), to.size());
}

checkpoint::EulerianRecord eulerian_record(const EulerianSimulator& e) {
  checkpoint::EulerianRecord r;
  r.velocity = values(e.world.velocity);
  r.pressure = values(e.world.pressure);
  for (const eulerian::EulerianSolid& s : e.world.solids)
    r.solids.push_back({values(s.u), values(s.v), std::vector<std::uint8_t>(s.valid.begin(), s.valid.end()),
                        values(s.pressure), plastic_values(s)});
  if (e.world.smoke) {
    r.smoke = true;
    const grid::Array3<Real>& d = e.world.smoke->density;
    r.smoke_density.assign(&d(0, 0, 0), &d(0, 0, 0) + d.count());
    r.smoke_velocity = values(e.world.smoke->velocity);
  }
  for (const EulerianSurface& s : e.surfaces) r.surfaces.push_back(s.vertices);
  const EulerianTally& t = e.tally;
  r.tally_frame = t.frame;
  r.tally_substeps = t.substeps;
  r.velocity_iterations = t.velocity_iterations;
  r.pressure_iterations = t.pressure_iterations;
  r.correction_iterations = t.correction_iterations;
  r.divergence = t.divergence;
  r.unknowns = t.unknowns;
  r.constraints = t.constraints;
  r.contacts = t.contacts;
  return r;
}

void restore_eulerian(const checkpoint::EulerianRecord& r, const std::string& where, EulerianSimulator& e) {
  eulerian::World& w = e.world;
  if (r.solids.size() != w.solids.size() || r.surfaces.size() != e.surfaces.size() || r.smoke != w.smoke.has_value())
    checkpoint::throw_mismatch(where, std::to_string(r.solids.size()) + " Eulerian solids" +
                                          (r.smoke ? " with smoke" : "") + " in the checkpoint, " +
                                          std::to_string(w.solids.size()) + (w.smoke ? " with smoke" : "") +
                                          " in the scene");
  restore_values(r.velocity, w.velocity, where, "the velocity");
  w.pressure = Eigen::Map<const eulerian::Vector>(r.pressure.data(), static_cast<Index>(r.pressure.size()));
  for (std::size_t l = 0; l < w.solids.size(); ++l) {
    eulerian::EulerianSolid& s = w.solids[l];
    const std::string name = "solid \"" + e.surfaces[l].name + "\"";
    restore_values(r.solids[l].u, s.u, where, name + "'s displacement");
    restore_values(r.solids[l].v, s.v, where, name + "'s velocity");
    if (r.solids[l].valid.size() != s.valid.size())
      checkpoint::throw_mismatch(where, name + "'s valid nodes do not fit the scene's grid");
    s.valid.assign(r.solids[l].valid.begin(), r.solids[l].valid.end());
    s.pressure = Eigen::Map<const eulerian::Vector>(r.solids[l].pressure.data(),
                                                    static_cast<Index>(r.solids[l].pressure.size()));
    restore_plastic(r.solids[l].plastic, s, where, name);
    if (r.surfaces[l].cols() != e.surfaces[l].vertices.cols())
      checkpoint::throw_mismatch(where, name + "'s surface has " + std::to_string(r.surfaces[l].cols()) +
                                            " vertices in the checkpoint, " +
                                            std::to_string(e.surfaces[l].vertices.cols()) + " in the scene");
    e.surfaces[l].vertices = r.surfaces[l];
  }
  if (w.smoke) {
    grid::Array3<Real>& d = w.smoke->density;
    if (static_cast<Index>(r.smoke_density.size()) != d.count())
      checkpoint::throw_mismatch(where, "the smoke density does not fit the scene's grid");
    std::copy(r.smoke_density.begin(), r.smoke_density.end(), &d(0, 0, 0));
    restore_values(r.smoke_velocity, w.smoke->velocity, where, "the smoke velocity");
  }
  e.tally = EulerianTally{};
  EulerianTally& t = e.tally;
  t.frame = r.tally_frame;
  t.substeps = r.tally_substeps;
  t.velocity_iterations = r.velocity_iterations;
  t.pressure_iterations = r.pressure_iterations;
  t.correction_iterations = r.correction_iterations;
  t.divergence = r.divergence;
  t.unknowns = r.unknowns;
  t.constraints = r.constraints;
  t.contacts = r.contacts;
}

}  // namespace

void EulerianSimulator::save(checkpoint::Snapshot& snapshot) const { snapshot.eulerian = eulerian_record(*this); }

void EulerianSimulator::restore(const checkpoint::Snapshot& snapshot, const std::string& file) {
  const std::string where = checkpoint::section_where(file, checkpoint::SECTION_EULERIAN);
  if (!snapshot.eulerian) checkpoint::throw_mismatch(where, "it holds no Eulerian world and the scene has one");
  restore_eulerian(*snapshot.eulerian, where, *this);
}

}  // namespace fsicut::sim
