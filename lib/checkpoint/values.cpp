#include "lib/checkpoint/values.hpp"

#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::checkpoint {
namespace {

// Element kinds of stored arrays.
template <class T>
struct Kind;
template <>
struct Kind<Real> {
  static constexpr std::uint8_t value = 1;  // f64
};
template <>
struct Kind<char> {
  static constexpr std::uint8_t value = 2;  // u8
};

}  // namespace

Eigen::VectorXd get_vector(ByteReader& r, const std::string& name) {
  const std::vector<double> v = get_values<double>(r, name);
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Index>(v.size()));
}

void get_vector(ByteReader& r, Eigen::VectorXd& to, const std::string& name) {
  const std::vector<double> v = get_values<double>(r, name);
  if (static_cast<Index>(v.size()) != to.size())
    throw_mismatch(r.where(), name + " has " + std::to_string(v.size()) + " values in the checkpoint, " +
                                  std::to_string(to.size()) + " in the scene");
  to = Eigen::Map<const Eigen::VectorXd>(v.data(), to.size());
}

void put_points(ByteWriter& w, const Points& p) {
  w.u64(static_cast<std::uint64_t>(p.cols()));
  w.raw(p.data(), static_cast<std::size_t>(p.size()) * sizeof(Real));
}

Points get_points(ByteReader& r, const std::string& name) {
  const std::uint64_t cols = r.u64();
  if (cols > r.remaining() / (3 * sizeof(Real))) r.fail(name + ": more columns than the data holds");
  Points p(3, static_cast<Index>(cols));
  const std::size_t bytes = static_cast<std::size_t>(p.size()) * sizeof(Real);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(p.data(), from, bytes);
  return p;
}

void get_points(ByteReader& r, Points& to, Index columns, const std::string& name) {
  Points p = get_points(r, name);
  if (p.cols() != columns)
    throw_mismatch(r.where(), name + " has " + std::to_string(p.cols()) + " nodes in the checkpoint, " +
                                  std::to_string(columns) + " in the scene");
  to = std::move(p);
}

template <class T>
void put_array(ByteWriter& w, const grid::Array3<T>& a) {
  w.u8(Kind<T>::value);
  for (int d = 0; d < 3; ++d) w.i32(a.size()[d]);
  w.raw(a.data().data(), a.data().size() * sizeof(T));
}

template <class T>
void get_array(ByteReader& r, grid::Array3<T>& to, const std::string& name) {
  if (r.u8() != Kind<T>::value) r.fail(name + ": unexpected element type");
  Vec3i size;
  for (int d = 0; d < 3; ++d) size[d] = r.i32();
  const Index count = size.template cast<Index>().prod();
  if (size.minCoeff() < 0 || static_cast<std::uint64_t>(count) > r.remaining() / sizeof(T))
    r.fail(name + ": " + shape_text(size) + " is more than the data holds");
  if (size != to.size() && to.count() != 0 && count != 0)
    throw_mismatch(r.where(), name + " is " + shape_text(size) + ", the scene's grid needs " + shape_text(to.size()));
  to.resize(size);
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(to.data().data(), from, bytes);
}

template void put_array(ByteWriter&, const grid::Array3<Real>&);
template void put_array(ByteWriter&, const grid::Array3<char>&);
template void get_array(ByteReader&, grid::Array3<Real>&, const std::string&);
template void get_array(ByteReader&, grid::Array3<char>&, const std::string&);

std::string shape_text(const Vec3i& s) {
  return std::to_string(s.x()) + " x " + std::to_string(s.y()) + " x " + std::to_string(s.z());
}

}  // namespace fsicut::checkpoint
