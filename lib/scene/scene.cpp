#include "lib/scene/scene.hpp"

#include "lib/scene/names.hpp"

namespace fsicut::scene {

const char* to_string(Coupling::Scheme scheme) { return name_of(scheme); }

const char* to_string(Coupling::Preconditioner preconditioner) { return name_of(preconditioner); }

}  // namespace fsicut::scene
