#pragma once
// The stored forms of the values the codecs of runtime types share
// (format.hpp names them):
//   values  u64 n, n elements (f64 for doubles, u8 for bytes)
//   points  u64 #columns n, f64 3 x n column-major
//   array   u8 element kind (1: f64, 2: u8), 3 x i32 dimensions, the
//           elements (x fastest)
// Every get checks a count against the bytes left before allocating (a
// corrupt count is a CorruptError "<where>: <name>: ...", not a request for
// terabytes); the gets that restore into an object built from the scene also
// check that the stored size fits it (throw_mismatch).
#include <cstring>
#include <string>
#include <vector>

#include "lib/checkpoint/bytes.hpp"
#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::checkpoint {

// ---- values
template <class T>
void put_values(ByteWriter& w, const T* data, std::size_t n) {
  w.u64(n);
  if (n > 0) w.raw(data, n * sizeof(T));
}
template <class T>
void put_values(ByteWriter& w, const std::vector<T>& v) {
  put_values(w, v.data(), v.size());
}
inline void put_values(ByteWriter& w, const Eigen::VectorXd& v) {
  put_values(w, v.data(), static_cast<std::size_t>(v.size()));
}

template <class T>
std::vector<T> get_values(ByteReader& r, const std::string& name) {
  const std::uint64_t n = r.u64();
  if (n > r.remaining() / sizeof(T)) r.fail(name + ": more values than the data holds");
  std::vector<T> v(static_cast<std::size_t>(n));
  const char* from = r.take(v.size() * sizeof(T));
  if (n > 0) std::memcpy(v.data(), from, v.size() * sizeof(T));
  return v;
}
// Any number of doubles (a warm start the next solve sizes).
Eigen::VectorXd get_vector(ByteReader& r, const std::string& name);
// Exactly to.size() doubles: mismatch "<name> has n values in the
// checkpoint, m in the scene" otherwise.
void get_vector(ByteReader& r, Eigen::VectorXd& to, const std::string& name);

// ---- points
void put_points(ByteWriter& w, const Points& p);
Points get_points(ByteReader& r, const std::string& name);
// Exactly `columns` columns: mismatch "<name> has n nodes in the checkpoint,
// m in the scene" otherwise.
void get_points(ByteReader& r, Points& to, Index columns, const std::string& name);

// ---- arrays (Real or char elements)
template <class T>
void put_array(ByteWriter& w, const grid::Array3<T>& a);
// Into `to`: an empty array (static_phi before it is first computed) fits
// any; otherwise its size must be to's ("<name> is 17 x 16 x 16, the scene's
// grid needs 13 x 12 x 12"), unless `to` is empty.
template <class T>
void get_array(ByteReader& r, grid::Array3<T>& to, const std::string& name);

// How messages write an array's dimensions: "16 x 17 x 16".
std::string shape_text(const Vec3i& size);

}  // namespace fsicut::checkpoint
