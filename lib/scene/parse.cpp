#include "lib/scene/parse.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace fsicut::scene {
namespace {


// 1-based line and column of a byte offset, for syntax errors.
std::pair<size_t, size_t> line_column(const std::string& text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < std::min(byte, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// A first pass over the text for what nlohmann's DOM parser cannot report
// with a JSON pointer: duplicate keys (the DOM silently keeps the last one, so
// the scene would not say what it seems to say) and numbers that overflow a
// double (1e400). Syntax errors are left to the second pass, which reports
// them with line and column.
class StrictnessCheck : public nlohmann::json_sax<json> {
 public:
  // `prefix`: the pointer of the text's root in the scene ("" for the file,
  // the target of --set for its value).
  StrictnessCheck(const std::string& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    open(true);
    return true;
  }
  bool key(string_t& key) override {
    Level& level = levels_.back();
    std::string escaped;
    for (char c : key) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    level.segment = escaped;
    if (!level.keys.insert(key).second)
      throw SceneError(file_, pointer(), "duplicate key \"" + key + "\" (a key may appear once per object)");
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    open(false);
    return true;
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // out_of_range 406 is "number overflow parsing '1e400'": the value that
    // overflowed is the one about to be stored at the current pointer.
    if (e.id == NUMBER_OVERFLOW_ID) {
      if (!levels_.empty() && !levels_.back().is_object) levels_.back().segment = std::to_string(levels_.back().count);
      throw SceneError(file_, pointer(), "number out of range: it overflows a double (largest about 1.8e308)");
    }
    return false;
  }

 private:
  static constexpr int NUMBER_OVERFLOW_ID = 406;
  struct Level {
    bool is_object = false;
    std::set<std::string> keys;
    std::string segment;  // the key (escaped) or index of the current member
    std::size_t count = 0;  // array elements so far
  };

  std::string pointer() const {
    std::string p = prefix_;
    for (const Level& level : levels_) p += "/" + level.segment;
    return p;
  }
  void open(bool is_object) {
    if (!levels_.empty() && !levels_.back().is_object) levels_.back().segment = std::to_string(levels_.back().count);
    levels_.push_back(Level{is_object, {}, {}, 0});
  }
  bool close() {
    levels_.pop_back();
    return value();
  }
  bool value() {
    if (!levels_.empty() && !levels_.back().is_object) ++levels_.back().count;
    return true;
  }

  const std::string& file_;
  const std::string prefix_;
  std::vector<Level> levels_;
};

}  // namespace

json parse_json(const std::string& text, const std::string& file) {
  StrictnessCheck check(file, "");
  json::sax_parse(text, &check, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
  try {
    return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the offending character.
    const auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    what = pos == std::string::npos ? what : what.substr(pos);
    throw SceneError(SceneError::syntax, file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }
}

namespace {

// A JSON pointer's reference token as the key it names: ~1 is '/', ~0 is '~'.
std::string unescape(const std::string& token) {
  std::string key;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      key += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      key += token[i];
    }
  }
  return key;
}

// Why `pointer` cannot take a --set value in `root`, or "" if it can: a JSON
// pointer's syntax (RFC 6901: '~' escapes only as ~0 and ~1), and an array
// index past the end, which nlohmann would fill with nulls up to it.
std::string pointer_problem(const json& root, const std::string& pointer) {
  for (size_t i = 0; i < pointer.size(); ++i)
    if (pointer[i] == '~' && (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')))
      return "\"" + pointer + "\" is not a JSON pointer: '~' must be followed by 0 (for a '~' in a key) or 1 (for a '/')";
  const json* at = &root;
  std::string walked;
  size_t start = 1;
  while (at && start <= pointer.size()) {
    const size_t end = std::min(pointer.find('/', start), pointer.size());
    const std::string token = pointer.substr(start, end - start);
    if (at->is_array() && token != "-") {
      const bool digits = !token.empty() && std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
      if (!digits || (token.size() > 1 && token[0] == '0'))
        return (walked.empty() ? "the root" : walked) + " is an array: \"" + token + "\" is not an index";
      if (token.size() > 9 || std::stoul(token) > at->size())
        return "index " + token + " is past the end of " + walked + ", which has " + std::to_string(at->size()) +
               " (" + walked + "/" + std::to_string(at->size()) + " or " + walked + "/- appends)";
      at = std::stoul(token) < at->size() ? &(*at)[std::stoul(token)] : nullptr;
    } else {
      const std::string key = unescape(token);
      at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
    }
    walked += "/" + token;
    start = end + 1;
  }
  return "";
}

// nlohmann's message without its "[json.exception.type_error.305] " tag.
std::string without_tag(const std::string& what) {
  const size_t tag = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos ? what.substr(tag + 2) : what;
}

}  // namespace

void apply_overrides(json& root, const std::vector<Override>& overrides, const std::string& file) {
  for (const Override& ov : overrides) {
    const std::string problem = pointer_problem(root, ov.pointer);
    if (!problem.empty()) throw SceneError("--set", ov.pointer + "=" + ov.value, problem);
    json value;
    // The value is JSON as much as the file is: the same duplicate-key and
    // overflow checks, with pointers below the --set target. Text that is
    // not JSON at all is a string (--set /coupling/alpha=auto).
    StrictnessCheck check(file, ov.pointer);
    json::sax_parse(ov.value, &check, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
    try {
      value = json::parse(ov.value);
    } catch (const json::parse_error&) {
      value = ov.value;
    }
    try {
      root[json::json_pointer(ov.pointer)] = value;
    } catch (const json::exception& e) {
      throw SceneError(file, ov.pointer, "cannot apply --set " + ov.pointer + "=" + ov.value + ": " + without_tag(e.what()));
    }
  }
}

}  // namespace fsicut::scene
