#include "lib/checkpoint/liquid.hpp"

#include <algorithm>

#include "lib/checkpoint/snapshot.hpp"
#include "lib/checkpoint/values.hpp"

namespace fsicut::checkpoint {

void put(ByteWriter& w, const fluid::Liquid& l) {
  w.f64(l.particle_radius);
  w.f64(l.particle_volume);
  put_points(w, l.particles);
  for (int a = 0; a < 3; ++a) put_array(w, l.velocity[a]);
  put_array(w, l.pressure);
  put_array(w, l.liquid_phi);
  put_array(w, l.static_phi);
  put_array(w, l.solid_phi);
  for (int a = 0; a < 3; ++a) put_array(w, l.fractions[a]);
  for (int a = 0; a < 3; ++a) put_array(w, l.valid[a]);
}

void get(ByteReader& r, fluid::Liquid& l) {
  l.particle_radius = r.f64();
  l.particle_volume = r.f64();
  l.particles = get_points(r, "liquid particles");
  for (int a = 0; a < 3; ++a) get_array(r, l.velocity[a], "face velocities");
  get_array(r, l.pressure, "pressure");
  get_array(r, l.liquid_phi, "liquid distance field");
  get_array(r, l.static_phi, "obstacle distance field");
  get_array(r, l.solid_phi, "solid distance field");
  for (int a = 0; a < 3; ++a) get_array(r, l.fractions[a], "face fractions");
  for (int a = 0; a < 3; ++a) get_array(r, l.valid[a], "valid faces");
}

void put(ByteWriter& w, const fluid::PieceVelocities& pieces) {
  for (int a = 0; a < 3; ++a) {
    std::vector<Index> faces;
    for (const auto& [face, v] : pieces.faces[a]) faces.push_back(face);
    std::sort(faces.begin(), faces.end());
    std::vector<double> run;
    for (const Index face : faces) {
      const std::vector<Real>& v = pieces.faces[a].at(face);
      run.push_back(static_cast<double>(face));
      run.push_back(static_cast<double>(v.size()));
      run.insert(run.end(), v.begin(), v.end());
    }
    put_values(w, run);
  }
}

void get(ByteReader& r, fluid::PieceVelocities& pieces, const cutcell::SplitCells& split) {
  pieces.clear();
  for (int a = 0; a < 3; ++a) {
    const std::vector<double> run = get_values<double>(r, "piece velocities");
    for (std::size_t at = 0; at < run.size();) {
      if (at + 2 > run.size()) throw_mismatch(r.where(), "a face's record is cut short");
      const Index face = static_cast<Index>(run[at]);
      const std::size_t n = static_cast<std::size_t>(run[at + 1]);
      const std::vector<cutcell::FacePiece>* now = split.pieces(a, face);
      if (!now || now->size() != n || at + 2 + n > run.size())
        throw_mismatch(r.where(), "the piece velocities of face " + std::to_string(face) + " along axis " +
                                      std::to_string(a) + " do not match the split cells of the stored solids");
      pieces.faces[a][face].assign(run.begin() + static_cast<std::ptrdiff_t>(at + 2),
                                   run.begin() + static_cast<std::ptrdiff_t>(at + 2 + n));
      at += 2 + n;
    }
  }
}

}  // namespace fsicut::checkpoint
