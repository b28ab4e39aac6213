#include "lib/checkpoint/solids.hpp"

#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/values.hpp"
#include "lib/solid/corotation.hpp"

namespace fsicut::checkpoint {

void put(ByteWriter& w, const solid::Body& b) {
  w.str(b.name);
  put_points(w, b.x);
  put_points(w, b.v);
}

void get(ByteReader& r, solid::Body& b) {
  const std::string name = r.str();
  if (name != b.name)
    throw_mismatch(r.where(), "solid \"" + name + "\" in the checkpoint where the scene has \"" + b.name + "\"");
  get_points(r, b.x, b.num_nodes(), "solid \"" + name + "\" positions");
  get_points(r, b.v, b.num_nodes(), "solid \"" + name + "\" velocities");
  solid::update_rotations(b);
}

void put(ByteWriter& w, const std::vector<solid::Body>& bodies) {
  w.u32(static_cast<std::uint32_t>(bodies.size()));
  for (const solid::Body& b : bodies) put(w, b);
}

void get(ByteReader& r, std::vector<solid::Body>& bodies) {
  const std::uint32_t count = r.u32();
  if (count != bodies.size())
    throw_mismatch(r.where(), std::to_string(count) + " solids in the checkpoint, " + std::to_string(bodies.size()) +
                                  " in the scene");
  for (solid::Body& b : bodies) get(r, b);
}

void put(ByteWriter& w, const std::string& name, const solid::ReducedState& s) {
  w.str(name);
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 3; ++d) w.f64(s.R(d, c));
  for (const Vec3* x : {&s.T, &s.v, &s.omega})
    for (int d = 0; d < 3; ++d) w.f64((*x)[d]);
  w.u32(static_cast<std::uint32_t>(s.q.size()));
  for (Index k = 0; k < s.q.size(); ++k) w.f64(s.q[k]);
  for (Index k = 0; k < s.qdot.size(); ++k) w.f64(s.qdot[k]);
}

void get(ByteReader& in, solid::ReducedBody& body, const std::string& name) {
  const std::string stored = in.str();
  if (stored != name)
    throw_mismatch(in.where(),
                   "reduced solid \"" + stored + "\" in the checkpoint where the scene has \"" + name + "\"");
  solid::ReducedState& s = body.state;
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 3; ++d) s.R(d, c) = in.f64();
  for (Vec3* x : {&s.T, &s.v, &s.omega})
    for (int d = 0; d < 3; ++d) (*x)[d] = in.f64();
  const std::uint32_t modes = in.u32();
  if (modes > in.remaining() / (2 * sizeof(double)))
    in.fail("reduced solid \"" + name + "\": more modes than the data holds");
  if (static_cast<int>(modes) != body.basis.modes())
    throw_mismatch(in.where(), "reduced solid \"" + name + "\" has " + std::to_string(modes) +
                                   " modes in the checkpoint, " + std::to_string(body.basis.modes()) + " in the scene");
  s.q.resize(modes);
  s.qdot.resize(modes);
  for (Index k = 0; k < s.q.size(); ++k) s.q[k] = in.f64();
  for (Index k = 0; k < s.qdot.size(); ++k) s.qdot[k] = in.f64();
}

}  // namespace fsicut::checkpoint
