#include "lib/scene/names.hpp"

namespace fsicut::scene {

template <>
const NameTable<Shape::Type>& names() {
  static const NameTable<Shape::Type> table = {
      {"box", Shape::Type::box}, {"sphere", Shape::Type::sphere}, {"obj", Shape::Type::obj}};
  return table;
}

template <>
const NameTable<MeshDesc::Type>& names() {
  static const NameTable<MeshDesc::Type> table = {{"box", MeshDesc::Type::box},
                                                  {"sphere", MeshDesc::Type::sphere},
                                                  {"shell", MeshDesc::Type::shell},
                                                  {"obj", MeshDesc::Type::obj}};
  return table;
}

template <>
const NameTable<SolidDesc::Element>& names() {
  static const NameTable<SolidDesc::Element> table = {{"linear", SolidDesc::Element::linear},
                                                      {"quadratic", SolidDesc::Element::quadratic}};
  return table;
}

template <>
const NameTable<SolidDesc::Model>& names() {
  static const NameTable<SolidDesc::Model> table = {{"full", SolidDesc::Model::full},
                                                    {"reduced", SolidDesc::Model::reduced}};
  return table;
}

template <>
const NameTable<Coupling::Scheme>& names() {
  static const NameTable<Coupling::Scheme> table = {{"spd", Coupling::Scheme::spd},
                                                    {"indefinite", Coupling::Scheme::indefinite},
                                                    {"damping_only", Coupling::Scheme::damping_only},
                                                    {"weak", Coupling::Scheme::weak},
                                                    {"partitioned", Coupling::Scheme::partitioned},
                                                    {"xpm", Coupling::Scheme::xpm},
                                                    {"eulerian", Coupling::Scheme::eulerian}};
  return table;
}

template <>
const NameTable<Coupling::Preconditioner>& names() {
  static const NameTable<Coupling::Preconditioner> table = {{"multigrid", Coupling::Preconditioner::multigrid},
                                                            {"mic", Coupling::Preconditioner::mic},
                                                            {"ic", Coupling::Preconditioner::ic}};
  return table;
}

template <>
const NameTable<Partitioned::Impulses>& names() {
  static const NameTable<Partitioned::Impulses> table = {{"pressure", Partitioned::Impulses::pressure},
                                                         {"conservative", Partitioned::Impulses::conservative}};
  return table;
}

template <>
const NameTable<Output::UpAxis>& names() {
  static const NameTable<Output::UpAxis> table = {{"y", Output::UpAxis::y}, {"z", Output::UpAxis::z}};
  return table;
}

template <>
const NameTable<Scene::OnAbsurd>& names() {
  static const NameTable<Scene::OnAbsurd> table = {{"stop", Scene::OnAbsurd::stop}, {"warn", Scene::OnAbsurd::warn}};
  return table;
}

template <>
const NameTable<Probe::Type>& names() {
  static const NameTable<Probe::Type> table = {
      {"pressure", Probe::Type::pressure}, {"gauge", Probe::Type::gauge}, {"point", Probe::Type::point}};
  return table;
}

template <>
const NameTable<Fluid::Kind>& names() {
  static const NameTable<Fluid::Kind> table = {{"liquid", Fluid::Kind::liquid}, {"smoke", Fluid::Kind::smoke}};
  return table;
}

template <>
const NameTable<SolidDesc::Representation>& names() {
  static const NameTable<SolidDesc::Representation> table = {
      {"lagrangian", SolidDesc::Representation::lagrangian}, {"eulerian", SolidDesc::Representation::eulerian}};
  return table;
}

template <>
const NameTable<EulerianCoupling::Solver>& names() {
  static const NameTable<EulerianCoupling::Solver> table = {{"pcr", EulerianCoupling::Solver::pcr},
                                                            {"minres", EulerianCoupling::Solver::minres}};
  return table;
}

template <>
const NameTable<EulerianCoupling::Integration>& names() {
  static const NameTable<EulerianCoupling::Integration> table = {
      {"semi_implicit", EulerianCoupling::Integration::semi_implicit},
      {"explicit", EulerianCoupling::Integration::explicit_euler},
      {"newmark", EulerianCoupling::Integration::newmark}};
  return table;
}

}  // namespace fsicut::scene
