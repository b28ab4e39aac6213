// The architecture as a contract (docs/architecture.md): lib/'s folders form
// layers, each including only the layers below it; only the driver (sim/) and
// the CLI know the scene; a file holds one concept, so none grows past
// MAX_FILE_LINES, and a function one step, so none grows past
// MAX_FUNCTION_LINES; and the tests are named so that ctest runs them. These
// tests read the source tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace fs = std::filesystem;

namespace {

// Bottom to top: a folder may include its own and the folders before it.
const std::vector<std::string> LAYERS = {"core",     "linsolve", "mesh", "grid",       "levelset", "cutcell", "solid",
                                         "fluid",    "eulerian", "coupling", "io", "checkpoint", "scene",  "sim"};

// Who may use scene types: the scene folder itself and the driver above it.
const std::vector<std::string> KNOW_THE_SCENE = {"scene", "sim"};

constexpr int MAX_FILE_LINES = 500;
constexpr int MAX_FUNCTION_LINES = 80;

int layer(const std::string& folder) {
  const auto it = std::find(LAYERS.begin(), LAYERS.end(), folder);
  return it == LAYERS.end() ? -1 : static_cast<int>(it - LAYERS.begin());
}

// The folders a source file includes from `root` ("<root>/<folder>/...").
std::vector<std::string> included_folders(const fs::path& file, const std::string& root = "lib") {
  const std::regex include("^\\s*#\\s*include\\s*\"" + root + "/([a-z_]+)/");
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, include)) out.push_back(m[1]);
  return out;
}

std::vector<fs::path> sources(const fs::path& folder) {
  std::vector<fs::path> out;
  if (!fs::exists(folder)) return out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".hpp" || ext == ".cpp")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// --- Function lengths -------------------------------------------------------
// A function's length is the lines from the first line of its definition (the
// `template <...>` line included, the comments above it not) to the line of
// its closing brace, blank and comment lines inside counted. A function is a
// body opened at namespace or class scope: a free function, a member function
// defined in or out of its class, a constructor (after its member
// initializers), an operator, or a lambda that initializes a variable at
// namespace scope. Lambdas and local classes inside a function count as part
// of it. The scanner is plain brace matching over the source with comments,
// string and character literals and preprocessor lines blanked out; it knows
// no macros that expand to braces (lib/ has none).

// The source with comments, literals (raw strings included) and preprocessor
// lines replaced by spaces; newlines kept, so line numbers stay.
std::string code_only(const std::string& src) {
  std::string out = src;
  const std::size_t n = src.size();
  const auto blank = [&out](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool line_start = true;  // only white space since the last newline
  std::size_t i = 0;
  while (i < n) {
    const char c = src[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // a preprocessor line, with its continuations
      std::size_t j = i;
      while (j < n && !(src[j] == '\n' && src[j - 1] != '\\')) ++j;
      blank(i, j);
      i = j;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      const std::size_t j = src.find('\n', i);
      blank(i, j == std::string::npos ? n : j);
      i = j == std::string::npos ? n : j;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      const std::size_t j = src.find("*/", i + 2);
      const std::size_t end = j == std::string::npos ? n : j + 2;
      blank(i, end);
      i = end;
    } else if (c == '"' && i > 0 && src[i - 1] == 'R' && (i < 2 || !ident(src[i - 2]) || src[i - 2] == '8' ||
                                                         src[i - 2] == 'u' || src[i - 2] == 'U' || src[i - 2] == 'L')) {
      const std::size_t open = src.find('(', i);
      const std::string close = ")" + src.substr(i + 1, open - i - 1) + "\"";
      const std::size_t j = src.find(close, open);
      const std::size_t end = j == std::string::npos ? n : j + close.size();
      blank(i, end);
      i = end;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(src[i - 1]))))) {
      // A literal up to its unescaped closing quote (a ' after a digit is a
      // digit separator, as in 1'000).
      std::size_t j = i + 1;
      while (j < n && src[j] != c && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

struct Token {
  std::string text;
  int line;
};

// Identifiers and numbers as one token each, the operators the scanner asks
// about ("::", "->", "==", "<=", ">=", "!=", op=) as one, any other character
// alone.
std::vector<Token> tokens(const std::string& code) {
  static const std::vector<std::string> PAIRS = {"::", "->", "==", "!=", "<=", ">=", "+=", "-=",
                                                  "*=", "/=", "%=", "&=", "|=", "^=", "&&", "||"};
  std::vector<Token> out;
  int line = 1;
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_' || code[j] == '.'))
        ++j;
    } else if (i + 1 < code.size() &&
               std::find(PAIRS.begin(), PAIRS.end(), code.substr(i, 2)) != PAIRS.end()) {
      j = i + 2;
    }
    out.push_back({code.substr(i, j - i), line});
    i = j;
  }
  return out;
}

struct FunctionSpan {
  std::string name;
  int first, last;  // lines, 1-based, inclusive
  int lines() const { return last - first + 1; }
};

bool is_identifier(const std::string& t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

// What a brace opened at namespace or class scope holds, read from the
// declaration before it (`decl`, from the last ';', '{' or '}' at that scope).
enum class Scope { NAMESPACE, CLASS, FUNCTION, OTHER };

// Where a declaration starts past its `template <...>` headers and [[attributes]].
std::size_t past_prefix(const std::vector<Token>& decl) {
  std::size_t b = 0;
  for (;;) {
    if (b + 1 < decl.size() && decl[b].text == "template" && decl[b + 1].text == "<") {
      int depth = 0;
      for (++b; b < decl.size(); ++b) {
        if (decl[b].text == "<") ++depth;
        if (decl[b].text == ">" && --depth == 0) break;
      }
      ++b;
    } else if (b + 1 < decl.size() && decl[b].text == "[" && decl[b + 1].text == "[") {
      while (b < decl.size() && decl[b].text != "]") ++b;
      b += 2;
    } else {
      return b;
    }
  }
}

Scope classify(const std::vector<Token>& decl) {
  const std::size_t b = past_prefix(decl);
  if (b >= decl.size()) return Scope::OTHER;  // a bare block
  const std::string& head = decl[b].text;
  if (head == "namespace" || head == "extern" || (head == "inline" && b + 1 < decl.size() &&
                                                  decl[b + 1].text == "namespace"))
    return Scope::NAMESPACE;
  if (head == "enum" || (head == "typedef" && b + 1 < decl.size() && decl[b + 1].text == "enum")) return Scope::OTHER;
  if (head == "class" || head == "struct" || head == "union" || head == "typedef") return Scope::CLASS;
  // At parenthesis depth 0: an '=' (a variable's initializer: a lambda or a
  // braced value) or a ':' after ')' (a constructor's member initializers).
  int parens = 0;
  bool assigned = false, lambda = false, initializers = false, closed = false;
  for (std::size_t k = b; k < decl.size(); ++k) {
    const std::string& t = decl[k].text;
    if (t == "(" || t == "[") ++parens;
    if (t == ")" || t == "]") --parens;
    if (parens == 0 && t == ")") closed = true;
    if (parens == 0 && t == "=" && (k == 0 || decl[k - 1].text != "operator")) assigned = true;
    if (assigned && t == "[") lambda = true;
    if (parens == 0 && closed && t == ":") initializers = true;
  }
  if (assigned) return lambda ? Scope::FUNCTION : Scope::OTHER;
  const std::string& last = decl.back().text;
  if (initializers) return last == ")" || last == "}" ? Scope::FUNCTION : Scope::OTHER;
  static const std::vector<std::string> QUALIFIERS = {")", "const", "noexcept", "override", "final",
                                                       "mutable", "volatile", "&", "&&"};
  if (std::find(QUALIFIERS.begin(), QUALIFIERS.end(), last) != QUALIFIERS.end()) return Scope::FUNCTION;
  for (const Token& t : decl)
    if (t.text == "->") return Scope::FUNCTION;  // a trailing return type
  return Scope::OTHER;  // a variable's braced initializer: `Weights w{}`
}

// The function's name as written before its parameters ("Class::name",
// "operator=", or a lambda's variable).
std::string function_name(const std::vector<Token>& decl) {
  int parens = 0;
  for (std::size_t k = past_prefix(decl); k < decl.size(); ++k) {
    const std::string& t = decl[k].text;
    if (t == "operator") {
      std::string name = "operator";
      for (std::size_t m = k + 1; m < decl.size() && (decl[m].text != "(" || m == k + 1); ++m) name += decl[m].text;
      return name;
    }
    if (k > 0 && parens == 0 && t == "=") return decl[k - 1].text;
    if (k > 0 && parens == 0 && t == "(" && is_identifier(decl[k - 1].text)) {
      std::size_t m = k - 1;  // the name's first token
      if (m >= 1 && decl[m - 1].text == "~") --m;
      std::string name = decl[m].text == "~" ? "~" + decl[k - 1].text : decl[k - 1].text;
      for (; m >= 2 && decl[m - 1].text == "::" && is_identifier(decl[m - 2].text); m -= 2)
        name = decl[m - 2].text + "::" + name;
      return name;
    }
    if (t == "(") ++parens;
    if (t == ")") --parens;
  }
  return "?";
}

// A name declared at namespace scope; `file_local` when it is in an anonymous
// namespace or `static`: unity builds (lib/CMakeLists.txt) put several .cpp
// files of a folder into one translation unit, where such names meet.
struct Declaration {
  std::string name;
  int line;
  bool file_local;
  std::string alias_of;  // for `using name = type;`: the type's tokens
};

// The name a declaration at namespace scope introduces ("" for none: a
// using-directive, a namespace alias, an out-of-line member, ...).
std::string declared_name(const std::vector<Token>& decl) {
  std::size_t b = past_prefix(decl);
  static const std::vector<std::string> SPECIFIERS = {"static", "inline", "constexpr", "const", "thread_local"};
  while (b < decl.size() && std::find(SPECIFIERS.begin(), SPECIFIERS.end(), decl[b].text) != SPECIFIERS.end()) ++b;
  if (b >= decl.size()) return "";
  const std::string& head = decl[b].text;
  if (head == "using") return b + 2 < decl.size() && decl[b + 2].text == "=" ? decl[b + 1].text : "";
  if (head == "namespace" || head == "extern" || head == "static_assert" || head == "friend") return "";
  if (head == "class" || head == "struct" || head == "union" || head == "enum") {
    std::size_t k = b + 1;
    if (k < decl.size() && (decl[k].text == "class" || decl[k].text == "struct")) ++k;
    return k < decl.size() && is_identifier(decl[k].text) ? decl[k].text : "";
  }
  int parens = 0;
  std::string last;
  for (std::size_t k = b; k < decl.size(); ++k) {
    const std::string& t = decl[k].text;
    if (parens == 0 && (t == "=" || t == "{" || t == "[")) break;
    if (parens == 0 && t == "(") return function_name(decl);  // a function, or a variable built with ()
    if (t == "(") ++parens;
    if (t == ")") --parens;
    if (parens == 0 && is_identifier(t)) last = t;
    if (parens == 0 && t == "::") last.clear();  // qualified: declared elsewhere
  }
  return last;
}

// The functions of `source` (bodies opened at namespace or class scope) and
// the names it declares at namespace scope.
struct Scan {
  std::vector<FunctionSpan> functions;
  std::vector<Declaration> declarations;
};

Scan scan(const std::string& source) {
  Scan out;
  std::vector<Scope> open;   // the braces open around the current token
  std::vector<bool> local;   // per brace: inside an anonymous namespace
  std::vector<FunctionSpan> bodies;  // the functions among them (at most one)
  std::vector<Token> decl;
  int nested = 0;            // braces open inside a function or initializer
  bool enumerators = false;  // inside the braces of an unscoped enum at namespace scope
  std::string previous;      // the token before, inside them
  const auto at_namespace_scope = [&] { return open.empty() || open.back() == Scope::NAMESPACE; };
  const auto declare = [&](const std::string& name, int line, bool is_static) {
    if (!name.empty() && name.find("::") == std::string::npos && name.find('.') == std::string::npos)
      out.declarations.push_back({name, line, is_static || (!local.empty() && local.back()), ""});
  };
  const auto declare_decl = [&] {
    if (decl.empty() || !at_namespace_scope()) return;
    const std::size_t b = past_prefix(decl);
    declare(declared_name(decl), decl.front().line, decl[b].text == "static");
    if (decl[b].text == "using" && b + 2 < decl.size() && decl[b + 2].text == "=" && !out.declarations.empty())
      for (std::size_t k = b + 3; k < decl.size(); ++k) out.declarations.back().alias_of += decl[k].text + " ";
  };
  for (const Token& t : tokens(code_only(source))) {
    if (nested > 0) {  // inside a function or a braced initializer
      if (enumerators && nested == 1 && is_identifier(t.text) && (previous == "{" || previous == ","))
        declare(t.text, t.line, false);
      previous = t.text;
      if (t.text == "{") ++nested;
      if (t.text == "}" && --nested == 0) {
        enumerators = false;
        const Scope s = open.back();
        open.pop_back();
        local.pop_back();
        if (s == Scope::FUNCTION) {
          bodies.back().last = t.line;
          out.functions.push_back(bodies.back());
          bodies.pop_back();
          declare_decl();
          decl.clear();
        } else {
          decl.push_back({"}", t.line});  // `T x{...};`, `: a_{1}, b_{2} {`
        }
      }
      continue;
    }
    if (t.text == "{") {
      const Scope s = classify(decl);
      const bool anonymous = s == Scope::NAMESPACE && !decl.empty() && decl.back().text == "namespace";
      if (s == Scope::FUNCTION) bodies.push_back({function_name(decl), decl.empty() ? t.line : decl.front().line, 0});
      if (s == Scope::CLASS) declare_decl();
      if (s == Scope::OTHER && at_namespace_scope() && !decl.empty()) {
        const std::size_t b = past_prefix(decl);
        enumerators = decl[b].text == "enum" && (b + 1 >= decl.size() || (decl[b + 1].text != "class" &&
                                                                           decl[b + 1].text != "struct"));
        previous = "{";
      }
      local.push_back(anonymous || (!local.empty() && local.back()));
      open.push_back(s);
      if (s == Scope::FUNCTION || s == Scope::OTHER) nested = 1;
      if (s == Scope::NAMESPACE || s == Scope::CLASS) decl.clear();
    } else if (t.text == "}") {
      if (!open.empty()) {
        open.pop_back();
        local.pop_back();
      }
      decl.clear();
    } else if (t.text == ";") {
      declare_decl();
      decl.clear();
    } else if (t.text == ":" && decl.size() == 1 &&
               (decl[0].text == "public" || decl[0].text == "private" || decl[0].text == "protected")) {
      decl.clear();
    } else {
      decl.push_back(t);
    }
  }
  return out;
}

std::vector<FunctionSpan> functions(const std::string& source) { return scan(source).functions; }

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("layering: every lib/ folder is a known layer and includes only itself and the layers below it") {
  const fs::path lib = fsicut::test::source_dir() / "lib";
  for (const auto& entry : fs::directory_iterator(lib)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    INFO("lib/" << folder);
    REQUIRE(layer(folder) >= 0);
    for (const fs::path& file : sources(entry.path()))
      for (const std::string& used : included_folders(file)) {
        INFO(file.lexically_relative(lib).string() << " includes lib/" << used);
        CHECK(layer(used) >= 0);
        CHECK(layer(used) <= layer(folder));
      }
  }
}

TEST_CASE("layering: only the driver knows the scene, in the library and in the tests of the layers below it") {
  const fs::path root = fsicut::test::source_dir();
  for (const std::string& folder : LAYERS) {
    if (std::find(KNOW_THE_SCENE.begin(), KNOW_THE_SCENE.end(), folder) != KNOW_THE_SCENE.end()) continue;
    for (const fs::path& dir : {root / "lib" / folder, root / "tests" / folder})
      for (const fs::path& file : sources(dir))
        for (const std::string& used : included_folders(file)) {
          INFO(file.lexically_relative(root).string() << " includes lib/" << used);
          CHECK(used != "scene");
          CHECK(used != "sim");
        }
    // Nor through the helpers of the driver's tests.
    for (const fs::path& file : sources(root / "tests" / folder))
      for (const std::string& used : included_folders(file, "tests")) {
        INFO(file.lexically_relative(root).string() << " includes tests/" << used);
        CHECK(used != "scene");
        CHECK(used != "sim");
        CHECK(used != "app");
      }
  }
}

TEST_CASE("layering: no file in lib/ holds more than MAX_FILE_LINES lines") {
  const fs::path lib = fsicut::test::source_dir() / "lib";
  for (const fs::path& file : sources(lib)) {
    std::ifstream in(file);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    INFO(file.lexically_relative(lib).string() << ": " << lines << " lines");
    CHECK(lines < MAX_FILE_LINES);
  }
}

TEST_CASE("layering: the function scanner finds bodies at namespace and class scope, and only those") {
  const std::string source = R"src(#include <vector>
#define NOT_CODE { {
namespace a {
namespace {
constexpr int N{3};
const std::vector<int> LIST = {1, 2};
enum class Kind : char { X = 0, Y = 1 };
template <class T, class U = std::vector<int>>
T free_function(const T& t,
                U u = {}) {
  const char* s = "} not a brace {";  // nor this }
  /* nor { this */
  const auto local = [&](int k) { return k; };
  return t + local('}');
}
}  // namespace
struct Holder : Base {
 public:
  Holder(int v) : v_{v}, w_(v) {
    if (v) { v_ = 1'000; }
  }
  bool operator==(const Holder& o) const { return v_ == o.v_; }
  ~Holder() { v_ = 0; }
  int get() const noexcept;
  auto twice() const -> int { return 2 * v_; }
 private:
  int v_{0}, w_;
};
int Holder::get() const noexcept {
  return v_;
}
const auto lambda = [](int x) {
  return x;
};
}  // namespace a
)src";
  std::ostringstream seen;
  for (const FunctionSpan& f : functions(source)) seen << f.name << ":" << f.first << "-" << f.last << " ";
  CHECK(seen.str() ==
        "free_function:8-15 Holder:19-21 operator==:22-22 ~Holder:23-23 twice:25-25 Holder::get:29-31 lambda:32-34 ");
}

TEST_CASE("layering: no function in lib/ runs over MAX_FUNCTION_LINES lines") {
  const fs::path lib = fsicut::test::source_dir() / "lib";
  int seen = 0;
  for (const fs::path& file : sources(lib))
    for (const FunctionSpan& f : functions(read_text(file))) {
      ++seen;
      INFO(file.lexically_relative(lib).string() << ":" << f.first << "-" << f.last << " " << f.name << ": "
                                                 << f.lines() << " lines");
      CHECK(f.lines() <= MAX_FUNCTION_LINES);
    }
  CHECK(seen > 500);  // the scanner does find functions
}

TEST_CASE("layering: the scanner finds the names a file declares at namespace scope, and which are its own") {
  const std::string source = R"src(namespace a {
Real shared(int);
struct Public { int x; };
namespace {
constexpr int N{3};
const std::vector<int> LIST = {1, 2};
using Pair = std::pair<int, int>;
enum Fill : char { EMPTY = 0, FULL };
enum class Kind { X, Y };
template <class F>
void for_rows(const F& f) { f(); }
struct Workspace {
  int helper() const { return 1; }
};
const auto lambda = [](int x) { return x; };
}  // namespace
static Real hidden(Real x) { return x; }
Real shared(int v) { return v; }
Real Public::get() const { return x; }
}  // namespace a
)src";
  std::ostringstream seen;
  for (const Declaration& d : scan(source).declarations) seen << d.name << (d.file_local ? "*" : "") << " ";
  CHECK(seen.str() ==
        "shared Public N* LIST* Pair* EMPTY* FULL* Fill* Kind* for_rows* Workspace* lambda* hidden* shared ");
}

TEST_CASE("unity builds: no two files of a lib/ folder hold file-local names alike") {
  // lib/CMakeLists.txt compiles each folder's .cpp files a batch at a time
  // as one translation unit, where their anonymous namespaces merge: two
  // file-local names alike would clash, or worse, overload each other in
  // silence; a file-local name alike to one a header of the folder declares
  // would overload it. Names are compared within one folder (a folder's
  // subfolders are folders of their own); a name may repeat inside one file.
  const fs::path lib = fsicut::test::source_dir() / "lib";
  // folder -> name -> the files (lib/-relative, without extension) and lines
  using Places = std::map<std::string, int>;
  std::map<std::string, std::map<std::string, Places>> local, declared;
  std::map<std::string, std::map<std::string, std::set<std::string>>> alias_types;
  for (const fs::path& file : sources(lib)) {
    const std::string folder = file.parent_path().lexically_relative(lib).string();
    const std::string stem = (file.parent_path() / file.stem()).lexically_relative(lib).string();
    for (const Declaration& d : scan(read_text(file)).declarations) {
      if (!d.alias_of.empty()) {  // aliases of one type may repeat; of two, they clash loudly
        alias_types[folder][d.name].insert(d.alias_of);
        continue;
      }
      (d.file_local ? local : declared)[folder][d.name].emplace(stem + file.extension().string(), d.line);
    }
  }
  for (const auto& [folder, names] : alias_types)
    for (const auto& [name, types] : names) {
      INFO("lib/" << folder << ": `" << name << "` names several types");
      CHECK(types.size() == 1);
    }
  const auto stem_of = [](const std::string& f) { return f.substr(0, f.rfind('.')); };
  for (const auto& [folder, names] : local)
    for (const auto& [name, places] : names) {
      std::string list;
      int files = 0;
      for (const auto& [f, line] : places) {
        list += " " + f + ":" + std::to_string(line);
        ++files;
      }
      // Declared outside the file and its own header: a clash in a batch.
      const auto found = declared[folder].find(name);
      if (found != declared[folder].end())
        for (const auto& [f, line] : found->second)
          if (files == 1 && stem_of(f) != stem_of(places.begin()->first)) {
            list += " " + f + ":" + std::to_string(line);
            ++files;
          }
      INFO("lib/" << folder << ": file-local `" << name << "` in" << list);
      CHECK(files == 1);
    }
}

TEST_CASE("unity builds: no .cpp file in lib/ leaves a macro or a using-directive to the files after it") {
  // In a unity batch, what one file defines at the end stays defined for the
  // next: a macro it does not #undef, a `using namespace` (at any scope, to
  // keep the rule simple).
  static const std::regex define(R"re(^\s*#\s*define\s+(\w+))re"), undef(R"re(^\s*#\s*undef\s+(\w+))re"),
      directive(R"re(\busing\s+namespace\b)re");
  const fs::path lib = fsicut::test::source_dir() / "lib";
  for (const fs::path& file : sources(lib)) {
    if (file.extension() != ".cpp") continue;
    const std::string name = file.lexically_relative(lib).string();
    std::istringstream text(read_text(file)), code(code_only(read_text(file)));
    std::set<std::string> defined;
    std::smatch m;
    int number = 0;
    for (std::string line, code_line; std::getline(text, line) && std::getline(code, code_line);) {
      ++number;
      if (std::regex_search(line, m, define)) defined.insert(m[1]);
      if (std::regex_search(line, m, undef)) defined.erase(m[1]);
      if (std::regex_search(code_line, directive)) FAIL_CHECK(name << ":" << number << ": " << line);
    }
    for (const std::string& macro : defined) FAIL_CHECK(name << " #defines " << macro << " without #undef");
  }
}

TEST_CASE("test names: none holds a semicolon, where ctest would cut the name and run no test") {
  // doctest_discover_tests registers each test case under its name; CMake
  // splits lists at ';', so a name with one became a ctest test whose filter
  // matched nothing and passed without running.
  static const std::regex test_case(R"re(TEST_CASE\s*\(\s*"([^"]*)")re");
  for (const fs::path& file : sources(fsicut::test::source_dir() / "tests")) {
    std::ifstream in(file);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, test_case)) {
        INFO(file.filename().string() << ": " << m[1]);
        CHECK(m[1].str().find(';') == std::string::npos);
      }
  }
}

TEST_CASE("layering: sim/ is a driver and two simulators, and only sim/build.cpp chooses between them") {
  // sim/*.{hpp,cpp} is the driver; sim/cutcell and sim/eulerian are the two
  // Simulator implementations (docs/architecture.md, "sim/").
  const fs::path sim = fsicut::test::source_dir() / "lib" / "sim";
  const std::regex include(R"re(^\s*#\s*include\s*"lib/sim/(cutcell|eulerian)/)re");
  const std::regex chooses(R"re(Scheme::eulerian)re");
  int choices = 0;
  for (const fs::path& file : sources(sim)) {
    const std::string relative = file.lexically_relative(sim).generic_string();
    const std::string folder = relative.find('/') == std::string::npos ? "" : relative.substr(0, relative.find('/'));
    std::ifstream in(file);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, chooses)) ++choices;
      if (!std::regex_search(line, m, include)) continue;
      INFO("lib/sim/" << relative << " includes lib/sim/" << m[1] << "/");
      if (folder.empty()) CHECK(relative == "build.cpp");
      else CHECK(folder == m[1]);
    }
  }
  // The issue's bound: at most two places in lib/sim ask which simulator runs.
  INFO("places in lib/sim that name the eulerian scheme: " << choices);
  CHECK(choices >= 1);
  CHECK(choices <= 2);
}
