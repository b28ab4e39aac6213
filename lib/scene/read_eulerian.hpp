#pragma once
// The scene keys of the eulerian scheme (Teng, Levin & Kim 2016; lib/eulerian):
// `fluid/kind` and `fluid/smoke`, a solid's `representation`, `incompressible`,
// `contact` and `plasticity`, `coupling/eulerian`, and the rules that tie them together.
// Every refusal is a SceneError naming the JSON pointer of the key at fault.
#include "lib/scene/json_reader.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::scene {

// fluid/kind and, for smoke, fluid/smoke {buoyancy, vorticity_confinement,
// sources [{min, max, density, velocity}]}; `f` is the /fluid object.
void read_fluid_kind(Object& f, const Where& fw, const Grid& grid, Fluid& fluid);

// solids/*/representation and the keys that go with it (incompressible,
// contact {stiffness, friction}, plasticity {yield (required), flow}, all
// Eulerian only); `o` is the solid's
// object, `mesh` its mesh object (max_tet_volume and quality are TetGen's and
// refused for an Eulerian solid), read before read_solid reads the rest.
void read_representation(Object& o, const Where& w, const json& mesh, SolidDesc& s);

// coupling/eulerian {pressure_tolerance, velocity_tolerance, solver,
// integration}; `c` is the /coupling object, its scheme already read.
void read_eulerian_coupling(Object& c, const Where& cw, Coupling& coupling);

// The rules between sections: an Eulerian solid needs coupling/scheme
// "eulerian" and the scheme needs every solid Eulerian; smoke needs the
// scheme and no liquid regions; the scheme takes no liquid, obstacles or
// probes; what the step does not implement yet (compressible solids with
// smoke or beside incompressible ones) is refused.
void check_eulerian(const Scene& scene, const Where& root);

}  // namespace fsicut::scene
