#include "lib/scene/scene.hpp"

namespace fsicut::scene {

const char* to_string(Coupling::Scheme scheme) {
  switch (scheme) {
    case Coupling::Scheme::spd: return "spd";
    case Coupling::Scheme::indefinite: return "indefinite";
    case Coupling::Scheme::damping_only: return "damping_only";
    case Coupling::Scheme::weak: return "weak";
    case Coupling::Scheme::partitioned: return "partitioned";
    case Coupling::Scheme::xpm: return "xpm";
  }
  return "?";
}

const char* to_string(Coupling::Preconditioner preconditioner) {
  switch (preconditioner) {
    case Coupling::Preconditioner::multigrid: return "multigrid";
    case Coupling::Preconditioner::mic: return "mic";
    case Coupling::Preconditioner::ic: return "ic";
  }
  return "?";
}

}  // namespace fsicut::scene
