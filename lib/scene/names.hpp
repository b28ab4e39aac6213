#pragma once
// The names of the scene's enumerations as scene files spell them: one table
// per enumeration, read by the loader (its "expected one of" messages list the
// names in this order), written back by to_json and to_string.
#include <string>
#include <utility>
#include <vector>

#include "lib/scene/scene.hpp"

namespace fsicut::scene {

template <class Enum>
using NameTable = std::vector<std::pair<std::string, Enum>>;

// Every name of Enum with its value, in the order messages list them.
template <class Enum>
const NameTable<Enum>& names();

template <> const NameTable<Shape::Type>& names();
template <> const NameTable<MeshDesc::Type>& names();
template <> const NameTable<SolidDesc::Element>& names();
template <> const NameTable<SolidDesc::Model>& names();
template <> const NameTable<Coupling::Scheme>& names();
template <> const NameTable<Coupling::Preconditioner>& names();
template <> const NameTable<Partitioned::Impulses>& names();
template <> const NameTable<Output::UpAxis>& names();
template <> const NameTable<Scene::OnAbsurd>& names();
template <> const NameTable<Probe::Type>& names();
template <> const NameTable<Fluid::Kind>& names();
template <> const NameTable<SolidDesc::Representation>& names();
template <> const NameTable<EulerianCoupling::Solver>& names();
template <> const NameTable<EulerianCoupling::Integration>& names();

// The name of `value` in names<Enum>() ("?" for a value outside the enumeration).
template <class Enum>
const char* name_of(Enum value) {
  for (const auto& [name, e] : names<Enum>())
    if (e == value) return name.c_str();
  return "?";
}

}  // namespace fsicut::scene
