#include "lib/sim/simulator.hpp"

#include <sstream>

namespace fsicut::sim {

std::string scene_summary(const scene::Scene& s) {
  std::ostringstream out;
  out << "scene     " << s.file << "\n";
  out << "grid      " << s.grid.resolution.transpose() << " cells of " << s.grid.cell_size << " m, from ["
      << s.grid.origin.transpose() << "] to [" << s.grid.max().transpose() << "]\n";
  out << "time      " << s.time.frames << " frames at " << s.time.fps << " fps (" << s.time.frames / s.time.fps
      << " s), cfl " << s.time.cfl << ", at most " << s.time.max_substeps << " substeps per frame";
  if (s.time.particle_cfl > 0) out << ", particles in steps of at most " << s.time.particle_cfl << " cells";
  out << "\n";
  return out.str();
}

}  // namespace fsicut::sim
