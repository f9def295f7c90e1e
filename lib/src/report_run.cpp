#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ngvi/report/run_record.hpp"
#include "json_io.hpp"
#include "provenance_json.hpp"

namespace ngvi::report {
namespace {

nlohmann::json plot_to_json(const PlotSpec& p) {
  nlohmann::json j = {{"id", p.id},         {"title", p.title},       {"x", p.x},           {"y", p.y},
          {"series", p.series}, {"xlabel", p.xlabel},     {"ylabel", p.ylabel}, {"logx", p.logx},
          {"logy", p.logy},     {"fit_from", p.fit_from}, {"fit_to", p.fit_to}, {"fit_series", p.fit_series},
          {"reference_series", p.reference_series}, {"mark_column", p.mark_column}, {"mark_label", p.mark_label}};
  if (std::isfinite(p.ymin)) j["ymin"] = p.ymin;
  if (p.points) j["points"] = true;
  return j;
}

PlotSpec plot_from_json(const nlohmann::json& j) {
  PlotSpec p;
  p.id = j.at("id").get<std::string>();
  p.title = j.value("title", p.id);
  p.x = j.value("x", p.x);
  p.y = j.at("y").get<std::string>();
  p.series = j.value("series", p.series);
  p.xlabel = j.value("xlabel", p.x);
  p.ylabel = j.value("ylabel", p.y);
  p.logx = j.value("logx", true);
  p.logy = j.value("logy", true);
  p.fit_from = j.value("fit_from", 0.0);
  p.fit_to = j.value("fit_to", 0.0);
  if (j.contains("fit_series")) p.fit_series = j["fit_series"].get<std::vector<std::string>>();
  p.reference_series = j.value("reference_series", std::string());
  p.mark_column = j.value("mark_column", std::string());
  p.points = j.value("points", false);
  p.mark_label = j.value("mark_label", p.mark_column);
  p.ymin = j.value("ymin", std::numeric_limits<double>::quiet_NaN());
  return p;
}

bool cell_is_safe(const std::string& s) { return s.find_first_of(",\"\r\n") == std::string::npos; }

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream ss(line);
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

void write_run_sidecar(const std::string& path, const RunSidecar& r) {
  nlohmann::json j;
  j["experiment"] = r.experiment;
  j["run"] = r.run;
  j["description"] = r.description;
  j["csv"] = r.csv;
  j["command"] = r.command;
  j["commit"] = r.commit;
  j["compiler"] = r.compiler;
  j["started"] = r.started;
  j["seconds"] = r.seconds;
  j["seed"] = r.seed;
  j["seeds"] = r.seeds;
  j["iters"] = r.iters;
  auto& params = j["parameters"] = nlohmann::json::object();
  for (const auto& [k, v] : r.parameters) params[k] = v;
  if (r.dataset) {
    const auto& d = *r.dataset;
    j["dataset"] = {{"name", d.name}, {"path", d.path},  {"crc32", d.crc32}, {"sha256", d.sha256},
                    {"target", d.target}, {"rows", d.rows}, {"cols", d.cols}, {"preprocessing", d.preprocessing}};
  } else {
    j["dataset"] = nullptr;
  }
  auto& plots = j["plots"] = nlohmann::json::array();
  for (const auto& p : r.plots) plots.push_back(plot_to_json(p));
  j["notes"] = r.notes;
  j["provenance"] = detail::provenance_to_json(r.provenance);
  detail::write_json_file(path, j);
}

RunSidecar read_run_sidecar(const std::string& path) {
  const nlohmann::json j = detail::read_json_file(path);
  try {
    RunSidecar r;
    r.experiment = j.at("experiment").get<std::string>();
    r.run = j.at("run").get<std::string>();
    r.description = j.value("description", std::string());
    r.csv = j.value("csv", r.csv);
    r.command = j.value("command", std::string());
    r.commit = j.value("commit", std::string());
    r.compiler = j.value("compiler", std::string());
    r.started = j.value("started", std::string());
    r.seconds = j.value("seconds", 0.0);
    r.seed = detail::integer_field(j, "seed", 0ULL);
    r.seeds = detail::integer_field(j, "seeds", 0L);
    r.iters = detail::integer_field(j, "iters", 0L);
    if (j.contains("parameters"))
      for (const auto& [k, v] : j["parameters"].items()) r.parameters.emplace_back(k, v.get<std::string>());
    if (j.contains("dataset") && j["dataset"].is_object()) {
      const auto& d = j["dataset"];
      DatasetInfo info;
      info.name = d.value("name", std::string());
      info.path = d.value("path", std::string());
      info.crc32 = d.value("crc32", std::string());
      info.sha256 = d.value("sha256", std::string());
      info.target = d.value("target", std::string());
      info.rows = detail::integer_field(d, "rows", 0L);
      info.cols = detail::integer_field(d, "cols", 0L);
      info.preprocessing = d.value("preprocessing", std::string());
      r.dataset = info;
    }
    if (j.contains("plots"))
      for (const auto& p : j["plots"]) r.plots.push_back(plot_from_json(p));
    if (j.contains("notes")) r.notes = j["notes"].get<std::vector<std::string>>();
    if (j.contains("provenance")) r.provenance = detail::provenance_from_json(j["provenance"]);
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("'" + path + "' is not a run sidecar: " + e.what());
  }
}

std::size_t TraceTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  throw std::runtime_error(source + ": no column '" + name + "'");
}

double TraceTable::number(std::size_t row, std::size_t col) const {
  const std::string& s = rows.at(row).at(col);
  if (s == "nan") return std::nan("");
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw std::runtime_error(fmt::format("{}:{}: column '{}' has non-numeric value '{}'", source, row + 2, columns.at(col), s));
  return v;
}

TraceTable read_trace_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  TraceTable t;
  t.source = path;
  std::string line;
  if (!std::getline(in, line) || line.empty()) throw std::runtime_error(path + ":1: empty file (no header)");
  t.columns = split_commas(line);
  long lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    auto cells = split_commas(line);
    if (cells.size() != t.columns.size())
      throw std::runtime_error(fmt::format("{}:{}: {} field(s), the header has {}", path, lineno, cells.size(), t.columns.size()));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

TraceWriter::TraceWriter(const std::string& path, std::vector<std::string> columns)
    : path_(path), columns_(std::move(columns)), out_(path) {
  if (!out_) throw std::runtime_error("cannot write '" + path + "'");
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (!cell_is_safe(columns_[i]) || columns_[i].empty())
      throw std::logic_error("ngvi::report::TraceWriter: column name '" + columns_[i] + "' is empty or has a comma, quote or line break");
    out_ << (i ? "," : "") << columns_[i];
  }
  out_ << '\n';
}

TraceWriter& TraceWriter::add(const std::string& text) {
  if (!cell_is_safe(text))
    throw std::logic_error("ngvi::report::TraceWriter::add: cell '" + text + "' has a comma, quote or line break");
  cells_.push_back(text);
  return *this;
}

TraceWriter& TraceWriter::add(double value) {
  if (std::isfinite(value)) {
    cells_.push_back(fmt::format("{:.17g}", value));
  } else {
    ++non_finite_;
    cells_.push_back(std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf"));
  }
  return *this;
}

TraceWriter& TraceWriter::add(long value) {
  cells_.push_back(std::to_string(value));
  return *this;
}

void TraceWriter::end_row() {
  if (cells_.size() != columns_.size())
    throw std::logic_error(fmt::format("ngvi::report::TraceWriter::end_row: {} cell(s) for {} column(s) in '{}'",
                                       cells_.size(), columns_.size(), path_));
  for (std::size_t i = 0; i < cells_.size(); ++i) out_ << (i ? "," : "") << cells_[i];
  out_ << '\n';
  cells_.clear();
  ++rows_;
}

void TraceWriter::close() {
  out_.flush();
  if (!out_) throw std::runtime_error("error while writing '" + path_ + "'");
  out_.close();
}

}  // namespace ngvi::report
