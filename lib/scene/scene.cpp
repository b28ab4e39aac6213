#include "lib/scene/scene.hpp"

#include "lib/scene/names.hpp"

namespace fsicut::scene {

bool has_liquid(const Scene& scene) {
  return scene.fluid.kind == Fluid::Kind::liquid && (!scene.fluid.regions.empty() || !scene.fluid.sources.empty());
}

const char* to_string(Coupling::Scheme scheme) { return name_of(scheme); }

const char* to_string(Coupling::Preconditioner preconditioner) { return name_of(preconditioner); }

}  // namespace fsicut::scene
