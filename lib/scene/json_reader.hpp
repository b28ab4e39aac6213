#pragma once
// The strict JSON reader the scene loader is built from: every value is read
// with its JSON pointer at hand, so every error names the file and the key
// ("<file>: /solids/0/density: must be > 0, got -1"); every key a reader asks
// for is "known", and an object's finish() rejects the keys nobody asked for,
// suggesting the closest known one. Range checks are named for the range they
// enforce so that messages say it. Used by lib/scene only (nlohmann/json stays
// inside this folder).
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/types.hpp"

namespace fsicut::scene {

using json = nlohmann::json;

// Where in the scene we are: the file (for messages), its folder (for paths)
// and the JSON pointer of the current value.
struct Where {
  const std::string& file;
  const std::string& directory;
  std::string pointer;

  Where operator/(const std::string& key) const {
    std::string escaped;
    for (char c : key) {
      if (c == '~') escaped += "~0";
      else if (c == '/') escaped += "~1";
      else escaped += c;
    }
    return {file, directory, pointer + "/" + escaped};
  }
  Where operator/(size_t index) const { return {file, directory, pointer + "/" + std::to_string(index)}; }
  [[noreturn]] void fail(const std::string& message) const { throw SceneError(file, pointer, message); }
};

// "a number", "an array", ... for messages.
std::string type_name(const json& j);

// The candidate closest to `key` (optimal-string-alignment distance), or ""
// when none is within about a third of the key's length: the "did you mean".
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);


// An object being read. Every key the reader asks for, present or not, is
// "known"; finish() rejects the keys in the file that nobody asked for.
class Object {
 public:
  Object(const json& j, Where where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) where_.fail("expected an object, got " + type_name(j_));
  }

  const Where& where() const { return where_; }
  bool has(const std::string& key) {
    known_.push_back(key);
    return j_.contains(key);
  }
  const json& at(const std::string& key) const { return j_.at(key); }

  template <class T, class Check>
  void get(const std::string& key, T& out, Check check) {
    if (!has(key)) return;
    read(j_.at(key), where_ / key, out);
    check(out, where_ / key);
  }
  template <class T>
  void get(const std::string& key, T& out) {
    get(key, out, [](const T&, const Where&) {});
  }
  template <class T, class Check>
  void require(const std::string& key, T& out, Check check) {
    if (!has(key)) where_.fail("missing required key \"" + key + "\"");
    get(key, out, check);
  }
  template <class T>
  void require(const std::string& key, T& out) {
    require(key, out, [](const T&, const Where&) {});
  }

  void finish() const {
    for (const auto& item : j_.items()) {
      if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
      std::string message = "unknown key \"" + item.key() + "\"";
      const std::string hint = closest_key(item.key(), known_);
      if (!hint.empty()) message += " (did you mean \"" + hint + "\"?)";
      (where_ / item.key()).fail(message);
    }
  }

  static void read(const json& j, const Where& w, Real& out) {
    if (!j.is_number()) w.fail("expected a number, got " + type_name(j));
    out = j.get<Real>();
    if (!std::isfinite(out)) w.fail("expected a finite number");
  }
  static void read(const json& j, const Where& w, int& out) {
    if (!j.is_number_integer()) w.fail("expected an integer, got " + type_name(j));
    // Unsigned JSON integers above LLONG_MAX would wrap in get<long long>().
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      w.fail("integer out of range: at most " + std::to_string(std::numeric_limits<int>::max()));
    const auto v = j.get<long long>();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      w.fail("integer out of range: " + std::to_string(std::numeric_limits<int>::min()) + " to " +
             std::to_string(std::numeric_limits<int>::max()));
    out = static_cast<int>(v);
  }
  static void read(const json& j, const Where& w, unsigned& out) {
    if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<long long>() < 0))
      w.fail("expected a non-negative integer, got " + type_name(j));
    // get<unsigned>() keeps the low 32 bits: 2^40 silently became 0.
    if (j.get<std::uint64_t>() > std::numeric_limits<unsigned>::max())
      w.fail("integer out of range: 0 to " + std::to_string(std::numeric_limits<unsigned>::max()));
    out = j.get<unsigned>();
  }
  static void read(const json& j, const Where& w, bool& out) {
    if (!j.is_boolean()) w.fail("expected true or false, got " + type_name(j));
    out = j.get<bool>();
  }
  static void read(const json& j, const Where& w, std::string& out) {
    if (!j.is_string()) w.fail("expected a string, got " + type_name(j));
    out = j.get<std::string>();
  }
  static void read(const json& j, const Where& w, Vec3& out) {
    if (!j.is_array() || j.size() != 3) w.fail("expected an array of 3 numbers, got " + type_name(j));
    for (size_t i = 0; i < 3; ++i) read(j[i], w / i, out[static_cast<Index>(i)]);
  }
  static void read(const json& j, const Where& w, Vec3i& out) {
    if (!j.is_array() || j.size() != 3) w.fail("expected an array of 3 integers, got " + type_name(j));
    for (size_t i = 0; i < 3; ++i) read(j[i], w / i, out[static_cast<Index>(i)]);
  }
  static void read(const json& j, const Where& w, std::optional<Real>& out) {
    Real v = 0;
    read(j, w, v);
    out = v;
  }

 private:
  const json& j_;
  Where where_;
  std::vector<std::string> known_;
};

// Numbers in messages as a user would write them (0.5, 1e-10), not std::to_string's 0.500000.
template <class T>
std::string num(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Range checks, named so that messages say what the range is.
inline auto positive() {
  return [](const auto& v, const Where& w) {
    if (!(v > 0)) w.fail("must be > 0, got " + num(v));
  };
}
inline auto non_negative() {
  return [](const auto& v, const Where& w) {
    if (v < 0) w.fail("must be >= 0, got " + num(v));
  };
}
inline auto at_least(int lo) {
  return [lo](const int& v, const Where& w) {
    if (v < lo) w.fail("must be >= " + num(lo) + ", got " + num(v));
  };
}
inline auto open_interval(Real lo, Real hi) {
  return [lo, hi](const Real& v, const Where& w) {
    if (!(v > lo && v < hi))
      w.fail("must be in (" + num(lo) + ", " + num(hi) + "), got " + num(v));
  };
}
inline auto positive_at_most(Real hi, const char* unit) {
  return [hi, unit](const Real& v, const Where& w) {
    if (!(v > 0 && v <= hi)) w.fail("must be > 0 and at most " + num(hi) + " " + unit + ", got " + num(v));
  };
}
inline auto non_negative_at_most(Real hi, const char* unit) {
  return [hi, unit](const Real& v, const Where& w) {
    if (!(v >= 0 && v <= hi)) w.fail("must be >= 0 and at most " + num(hi) + " " + unit + ", got " + num(v));
  };
}
inline auto positive_vec3i() {
  return [](const Vec3i& v, const Where& w) {
    for (int i = 0; i < 3; ++i)
      if (v[i] < 1) (w / static_cast<size_t>(i)).fail("must be >= 1, got " + num(v[i]));
  };
}
inline auto positive_optional() {
  return [](const std::optional<Real>& v, const Where& w) {
    if (v && !(*v > 0)) w.fail("must be > 0, got " + num(*v));
  };
}
// Reads `key` as one of `names` (in the order messages list them); absent: `fallback`,
// or an error when `required`.
template <class Enum>
Enum read_enum(Object& o, const std::string& key, const std::vector<std::pair<std::string, Enum>>& names,
               bool required, Enum fallback) {
  if (!o.has(key)) {
    if (required) o.where().fail("missing required key \"" + key + "\"");
    return fallback;
  }
  std::string name;
  o.get(key, name);
  std::vector<std::string> options;
  for (const auto& [n, e] : names) {
    if (n == name) return e;
    options.push_back(n);
  }
  std::string message = "unknown " + key + " \"" + name + "\"; expected one of:";
  for (const auto& n : options) message += " " + n;
  const std::string hint = closest_key(name, options);
  if (!hint.empty()) message += " (did you mean \"" + hint + "\"?)";
  (o.where() / key).fail(message);
}

// An array of values, each read by read_one(element, its Where).
template <class T, class ReadOne>
std::vector<T> read_array(const json& j, const Where& w, ReadOne read_one) {
  if (!j.is_array()) w.fail("expected an array, got " + type_name(j));
  std::vector<T> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(read_one(j[i], w / i));
  return out;
}

// `path` resolved against the scene's folder (w.directory), normalized.
std::string resolve_path(const std::string& path, const Where& w);
// The same for an input file, which must be a regular file when it exists.
std::string resolve_input_path(const std::string& path, const Where& w);
// max > min along every axis, else an error at w/max.
void check_box(const Vec3& lo, const Vec3& hi, const Where& w);

}  // namespace fsicut::scene
