#include "lib/checkpoint/eulerian_section.hpp"

#include <algorithm>
#include <cstring>

namespace fsicut::checkpoint {
namespace {

template <class T>
void put_values(ByteWriter& w, const std::vector<T>& v) {
  w.u64(v.size());
  if (!v.empty()) w.raw(v.data(), v.size() * sizeof(T));
}

// Checked before allocating: a corrupt count must not ask for terabytes.
template <class T>
std::vector<T> get_values(ByteReader& r, const char* name) {
  const std::uint64_t n = r.u64();
  if (n > r.remaining() / sizeof(T)) r.fail(std::string(name) + ": more values than the data holds");
  std::vector<T> v(static_cast<std::size_t>(n));
  const char* from = r.take(v.size() * sizeof(T));
  if (n > 0) std::memcpy(v.data(), from, v.size() * sizeof(T));
  return v;
}

}  // namespace

void put_eulerian(ByteWriter& w, const EulerianRecord& e) {
  put_values(w, e.velocity);
  put_values(w, e.pressure);
  w.u32(static_cast<std::uint32_t>(e.solids.size()));
  for (const EulerianSolidRecord& s : e.solids) {
    put_values(w, s.u);
    put_values(w, s.v);
    put_values(w, s.valid);
    put_values(w, s.pressure);
  }
  w.u8(e.smoke ? 1 : 0);
  if (e.smoke) {
    put_values(w, e.smoke_density);
    put_values(w, e.smoke_velocity);
  }
  w.u32(static_cast<std::uint32_t>(e.surfaces.size()));
  for (const Points& p : e.surfaces) {
    w.u64(static_cast<std::uint64_t>(p.cols()));
    w.raw(p.data(), static_cast<std::size_t>(p.size()) * sizeof(Real));
  }
  w.i32(e.tally_frame);
  w.i32(e.tally_substeps);
  for (std::int64_t v : {e.velocity_iterations, e.pressure_iterations, e.correction_iterations})
    w.u64(static_cast<std::uint64_t>(v));
  w.f64(e.divergence);
  w.u64(static_cast<std::uint64_t>(e.unknowns));
  w.u64(static_cast<std::uint64_t>(e.constraints));
  w.u64(static_cast<std::uint64_t>(e.contacts));
  // The plastic solids' F_p, after everything else and only when some solid
  // is plastic: an elastic world's section keeps its bytes.
  const bool plastic = std::any_of(e.solids.begin(), e.solids.end(),
                                   [](const EulerianSolidRecord& s) { return !s.plastic.empty(); });
  if (!plastic) return;
  w.u32(static_cast<std::uint32_t>(e.solids.size()));
  for (const EulerianSolidRecord& s : e.solids) put_values(w, s.plastic);
}

EulerianRecord get_eulerian(ByteReader& r) {
  EulerianRecord e;
  e.velocity = get_values<double>(r, "velocity");
  e.pressure = get_values<double>(r, "pressure");
  const std::uint32_t solids = r.u32();
  if (solids > r.remaining()) r.fail("more solids than the data holds");
  for (std::uint32_t l = 0; l < solids; ++l) {
    EulerianSolidRecord s;
    s.u = get_values<double>(r, "solid displacement");
    s.v = get_values<double>(r, "solid velocity");
    s.valid = get_values<std::uint8_t>(r, "solid valid nodes");
    s.pressure = get_values<double>(r, "solid pressure");
    e.solids.push_back(std::move(s));
  }
  e.smoke = r.u8() != 0;
  if (e.smoke) {
    e.smoke_density = get_values<double>(r, "smoke density");
    e.smoke_velocity = get_values<double>(r, "smoke velocity");
  }
  const std::uint32_t surfaces = r.u32();
  if (surfaces > r.remaining()) r.fail("more surfaces than the data holds");
  for (std::uint32_t l = 0; l < surfaces; ++l) {
    const std::vector<double> flat = [&] {
      const std::uint64_t cols = r.u64();
      if (cols > r.remaining() / (3 * sizeof(Real))) r.fail("surface: more vertices than the data holds");
      std::vector<double> v(static_cast<std::size_t>(3 * cols));
      const char* from = r.take(v.size() * sizeof(double));
      if (!v.empty()) std::memcpy(v.data(), from, v.size() * sizeof(double));
      return v;
    }();
    e.surfaces.push_back(Eigen::Map<const Points>(flat.data(), 3, static_cast<Index>(flat.size() / 3)));
  }
  e.tally_frame = r.i32();
  e.tally_substeps = r.i32();
  e.velocity_iterations = static_cast<std::int64_t>(r.u64());
  e.pressure_iterations = static_cast<std::int64_t>(r.u64());
  e.correction_iterations = static_cast<std::int64_t>(r.u64());
  e.divergence = r.f64();
  e.unknowns = static_cast<std::int64_t>(r.u64());
  e.constraints = static_cast<std::int64_t>(r.u64());
  e.contacts = static_cast<std::int64_t>(r.u64());
  if (r.remaining() == 0) return e;
  if (r.u32() != e.solids.size()) r.fail("plastic strain: not one record per solid");
  for (EulerianSolidRecord& s : e.solids) s.plastic = get_values<double>(r, "solid plastic strain");
  return e;
}

}  // namespace fsicut::checkpoint
