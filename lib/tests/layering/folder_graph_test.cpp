// The layering of lib/include/ngvi: the folders, joined by an edge a -> b whenever a header in a
// includes "ngvi/b/...", must form an acyclic graph, so that each folder can be read, tested and
// replaced without the folders above it. The headers are read from the source tree
// (NGVI_INCLUDE_DIR, set by lib/tests/CMakeLists.txt), so a new include that closes a cycle fails
// here and names the cycle and the headers that make each of its edges. The same reading checks
// that no header outside kernels/ names the thread pool type.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#ifndef NGVI_INCLUDE_DIR
#error "NGVI_INCLUDE_DIR must name lib/include/ngvi (lib/tests/CMakeLists.txt sets it)"
#endif

namespace {

namespace fs = std::filesystem;

using Edge = std::pair<std::string, std::string>;

/// The folder graph: folder → folders it includes, and for each edge the headers that make it.
struct FolderGraph {
  std::map<std::string, std::set<std::string>> out;
  std::map<Edge, std::set<std::string>> witnesses;
};

/// Edges allowed to close a cycle: none, every include between folders goes one way. A new cycle is
/// fixed, not listed; an entry would need the change that removes it named beside it
/// (FolderGraphTest.AllowedEdgesStillExist fails once such an edge is gone).
const std::set<Edge> kAllowedEdges = {};

/// The folder of a header given relative to the include root: its first path component, or "."
/// for a header at the root (ngvi/expfam.hpp).
std::string folder_of(const fs::path& relative) {
  const auto first = relative.begin();
  if (first == relative.end() || std::next(first) == relative.end()) return ".";
  return first->string();
}

/// Reads every .hpp under `root` (lib/include/ngvi) and builds the folder graph from its
/// `#include "ngvi/..."` and `#include <ngvi/...>` lines. Includes within one folder make no edge.
/// @throws std::runtime_error if `root` is not a directory or a header cannot be read.
FolderGraph read_folder_graph(const fs::path& root) {
  if (!fs::is_directory(root)) throw std::runtime_error("read_folder_graph: root '" + root.string() + "' is not a directory");
  static const std::regex kInclude(R"(^\s*#\s*include\s*[<"]ngvi/([^">]+)[">])");
  FolderGraph g;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
    const fs::path rel = fs::relative(entry.path(), root);
    const std::string from = folder_of(rel);
    g.out[from];
    std::ifstream in(entry.path());
    if (!in) throw std::runtime_error("read_folder_graph: cannot read '" + entry.path().string() + "'");
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (!std::regex_search(line, m, kInclude)) continue;
      const std::string to = folder_of(fs::path(m[1].str()));
      if (to == from) continue;
      g.out[from].insert(to);
      g.out[to];
      g.witnesses[{from, to}].insert(rel.generic_string() + " includes ngvi/" + m[1].str());
    }
  }
  return g;
}

/// A cycle of `out` (its nodes in order, the first repeated at the end), or nothing if `out` is
/// acyclic. Depth-first search in the maps' order, so the cycle reported is deterministic.
std::optional<std::vector<std::string>> find_cycle(const std::map<std::string, std::set<std::string>>& out) {
  enum class Mark { kNew, kOnPath, kDone };
  std::map<std::string, Mark> mark;
  for (const auto& [node, _] : out) mark[node] = Mark::kNew;
  std::vector<std::string> path;
  std::optional<std::vector<std::string>> cycle;
  auto visit = [&](auto&& self, const std::string& node) -> void {
    mark[node] = Mark::kOnPath;
    path.push_back(node);
    const auto it = out.find(node);
    if (it != out.end()) {
      for (const auto& next : it->second) {
        if (cycle) return;
        if (mark[next] == Mark::kOnPath) {
          const auto start = std::find(path.begin(), path.end(), next);
          cycle.emplace(start, path.end());
          cycle->push_back(next);
          return;
        }
        if (mark[next] == Mark::kNew) self(self, next);
      }
    }
    if (cycle) return;
    path.pop_back();
    mark[node] = Mark::kDone;
  };
  for (const auto& [node, _] : out) {
    if (cycle) break;
    if (mark[node] == Mark::kNew) visit(visit, node);
  }
  return cycle;
}

/// The graph without the edges of `allowed`.
std::map<std::string, std::set<std::string>> without(std::map<std::string, std::set<std::string>> out, const std::set<Edge>& allowed) {
  for (const auto& [from, to] : allowed)
    if (const auto it = out.find(from); it != out.end()) it->second.erase(to);
  return out;
}

std::string describe(const std::vector<std::string>& cycle, const FolderGraph& g) {
  std::string s;
  for (std::size_t i = 0; i < cycle.size(); ++i) s += (i ? " -> " : "") + cycle[i];
  for (std::size_t i = 0; i + 1 < cycle.size(); ++i) {
    s += "\n  " + cycle[i] + " -> " + cycle[i + 1] + ":";
    const auto it = g.witnesses.find({cycle[i], cycle[i + 1]});
    if (it != g.witnesses.end())
      for (const auto& w : it->second) s += "\n    " + w;
  }
  return s;
}

// The cycle finder on small graphs whose answer is known: it must find the cycle a -> b -> c -> a
// (reached from a node outside it), a self-loop, and nothing in a diamond.
TEST(FindCycleTest, FindsTheCycleOfASyntheticGraph) {
  const std::map<std::string, std::set<std::string>> g = {{"a", {"b"}}, {"b", {"c"}}, {"c", {"a", "d"}}, {"d", {}}, {"e", {"a"}}};
  const auto cycle = find_cycle(g);
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(*cycle, (std::vector<std::string>{"a", "b", "c", "a"}));
  // Removing one edge of the cycle, as kAllowedEdges does, breaks it.
  EXPECT_FALSE(find_cycle(without(g, {{"b", "c"}})).has_value());
}

TEST(FindCycleTest, FindsASelfLoopAndACycleNotThroughTheFirstNode) {
  EXPECT_EQ(find_cycle({{"a", {"a"}}}), (std::vector<std::string>{"a", "a"}));
  const auto cycle = find_cycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {"b"}}});
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(*cycle, (std::vector<std::string>{"b", "c", "b"}));
}

TEST(FindCycleTest, FindsNoCycleInADiamond) {
  EXPECT_FALSE(find_cycle({{"a", {"b", "c"}}, {"b", {"d"}}, {"c", {"d"}}, {"d", {}}}).has_value());
  EXPECT_FALSE(find_cycle({}).has_value());
}

// The reader on a synthetic tree: both include forms, indented and spaced directives, a root
// header, and includes that make no edge (same folder, other libraries, commented out).
TEST(ReadFolderGraphTest, BuildsTheGraphOfASyntheticTree) {
  const fs::path root = fs::temp_directory_path() / ("ngvi_folder_graph_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "x");
  fs::create_directories(root / "y" / "z");
  std::ofstream(root / "x" / "a.hpp") << "#pragma once\n#include \"ngvi/y/z/b.hpp\"\n#include \"ngvi/x/c.hpp\"\n#include <vector>\n";
  std::ofstream(root / "x" / "c.hpp") << "  #  include <ngvi/top.hpp>\n// #include \"ngvi/w/never.hpp\"\n";
  std::ofstream(root / "y" / "z" / "b.hpp") << "#include \"ngvi/x/a.hpp\"\n";
  std::ofstream(root / "top.hpp") << "#include \"ngvi/y/z/b.hpp\"\n";
  std::ofstream(root / "x" / "notes.md") << "#include \"ngvi/w/never.hpp\"\n";
  const FolderGraph g = read_folder_graph(root);
  fs::remove_all(root);
  const std::map<std::string, std::set<std::string>> expected = {{".", {"y"}}, {"x", {".", "y"}}, {"y", {"x"}}};
  EXPECT_EQ(g.out, expected);
  EXPECT_EQ(g.witnesses.at({"y", "x"}), (std::set<std::string>{"y/z/b.hpp includes ngvi/x/a.hpp"}));
  const auto cycle = find_cycle(g.out);
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(cycle->front(), cycle->back());
}

TEST(ReadFolderGraphTest, RejectsARootThatIsNotADirectory) {
  EXPECT_THROW(read_folder_graph(fs::path(NGVI_INCLUDE_DIR) / "no-such-folder"), std::runtime_error);
}

// The library's own headers: acyclic once the listed exceptions are set aside.
TEST(FolderGraphTest, LibraryFoldersAreAcyclic) {
  const FolderGraph g = read_folder_graph(NGVI_INCLUDE_DIR);
  // The reader saw the tree: the core folders and a known edge are there.
  ASSERT_TRUE(g.out.count("linalg") && g.out.count("kernels") && g.out.count("optim")) << "read from " << NGVI_INCLUDE_DIR;
  ASSERT_TRUE(g.out.at("optim").count("expfam"));
  const auto cycle = find_cycle(without(g.out, kAllowedEdges));
  EXPECT_FALSE(cycle.has_value()) << "folder cycle in " << NGVI_INCLUDE_DIR << ": " << describe(*cycle, g);
}

// Every allowed exception is still an edge of the tree; one that is gone must leave the list, so
// that the list cannot hide a cycle that comes back later.
TEST(FolderGraphTest, AllowedEdgesStillExist) {
  const FolderGraph g = read_folder_graph(NGVI_INCLUDE_DIR);
  for (const auto& [from, to] : kAllowedEdges) {
    const auto it = g.out.find(from);
    EXPECT_TRUE(it != g.out.end() && it->second.count(to))
        << from << " -> " << to << " is no longer an edge: remove it from kAllowedEdges";
  }
}

/// Headers under `root` outside the folder `home` whose code (the part of each line before a `//`)
/// names `type`, as paths relative to `root`.
std::set<std::string> headers_naming_outside(const fs::path& root, const std::string& type, const std::string& home) {
  const std::regex word("\\b" + type + "\\b");
  std::set<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
    const fs::path rel = fs::relative(entry.path(), root);
    if (folder_of(rel) == home) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (std::regex_search(line.substr(0, line.find("//")), word)) {
        found.insert(rel.generic_string());
        break;
      }
    }
  }
  return found;
}

/// Headers outside kernels/ allowed to name parallel::TilePool: none.
const std::set<std::string> kAllowedTilePoolHeaders = {};

// The thread pool is the kernels' business: code outside kernels/ holds a kernels::ExecutionContext
// or a kernels::TileThreads handle, never the pool type (a comment may name it).
TEST(LayeringTest, NoTilePoolOutsideKernels) {
  const auto found = headers_naming_outside(NGVI_INCLUDE_DIR, "TilePool", "kernels");
  std::string unexpected;
  for (const auto& h : found)
    if (!kAllowedTilePoolHeaders.count(h)) unexpected += " " + h;
  EXPECT_TRUE(unexpected.empty()) << "headers outside kernels/ naming TilePool:" << unexpected;
  for (const auto& h : kAllowedTilePoolHeaders)
    EXPECT_TRUE(found.count(h)) << h << " no longer names TilePool: remove it from kAllowedTilePoolHeaders";
}

TEST(LayeringTest, HeadersNamingOutsideFindsCodeNotComments) {
  const fs::path root = fs::temp_directory_path() / ("ngvi_naming_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "kernels");
  fs::create_directories(root / "optim");
  std::ofstream(root / "kernels" / "pool.hpp") << "struct TilePool {};\n";
  std::ofstream(root / "optim" / "uses.hpp") << "void f(parallel::TilePool* pool);\n";
  std::ofstream(root / "optim" / "comment.hpp") << "/// runs on a parallel::TilePool\nint g();  // TilePool\n";
  std::ofstream(root / "optim" / "longer.hpp") << "struct TilePoolish {};\n";
  const auto found = headers_naming_outside(root, "TilePool", "kernels");
  fs::remove_all(root);
  EXPECT_EQ(found, (std::set<std::string>{"optim/uses.hpp"}));
}

}  // namespace
