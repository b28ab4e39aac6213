#pragma once
// The one place that chooses the simulator a scene runs on (sim/simulator.hpp):
// coupling/scheme "eulerian" builds the Eulerian simulator, every other
// scheme the cut-cell one.
#include <memory>

#include "lib/scene/scene.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {

// Builds the scene's simulator: its meshes, bodies, liquid or world. Everything
// the scene asks for is checked here, before any output exists: meshes
// (MeshError naming the OBJ file and the scene pointer), solids that do not fit
// in the grid and stages this build cannot run (SceneError with the pointer),
// so a refused scene leaves the output folder untouched.
std::unique_ptr<Simulator> build_simulator(const scene::Scene& scene);

}  // namespace fsicut::sim
