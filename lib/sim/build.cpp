#include "lib/sim/build.hpp"

#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/eulerian/simulator.hpp"

namespace fsicut::sim {

std::unique_ptr<Simulator> build_simulator(const scene::Scene& scene) {
  if (scene.coupling.scheme == scene::Coupling::Scheme::eulerian) return std::make_unique<EulerianSimulator>(scene);
  return std::make_unique<CutCellSimulator>(scene);
}

}  // namespace fsicut::sim
