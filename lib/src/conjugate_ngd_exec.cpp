// The conjugate-NGD protocol over the line protocol of docs/protocol.md
// (protocols/conjugate_ngd_exec.hpp).
#include "ngvi/protocols/conjugate_ngd_exec.hpp"

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/protocols/exec_process.hpp"

namespace ngvi::protocols {

namespace {

// Keys in the order written, so a request reads as docs/protocol.md shows it.
using Json = nlohmann::ordered_json;

Json vec_json(const Vec<double>& v) {
  Json a = Json::array();
  for (Index i = 0; i < v.size(); ++i) a.push_back(v(i));
  return a;
}
Json mat_json(const Mat<double>& m) {
  Json a = Json::array();
  for (Index i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    a.push_back(std::move(row));
  }
  return a;
}
Json natural_json(const GaussianNatural<double>& eta) { return Json{{"eta1", vec_json(eta.first)}, {"eta2", mat_json(eta.second)}}; }

// A shape error: what the answer lacks.
struct Shape : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Vec<double> vec_from(const Json& j, const char* field) {
  if (!j.is_array()) throw Shape(std::string("'") + field + "' is not an array of numbers");
  Vec<double> v(static_cast<Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number()) throw Shape(std::string("'") + field + "' has an entry that is not a number");
    v(static_cast<Index>(i)) = j[i].get<double>();
  }
  return v;
}
Mat<double> mat_from(const Json& j, const char* field) {
  if (!j.is_array()) throw Shape(std::string("'") + field + "' is not an array of rows");
  const std::size_t rows = j.size(), cols = rows == 0 ? 0 : (j[0].is_array() ? j[0].size() : 0);
  Mat<double> m(static_cast<Index>(rows), static_cast<Index>(cols));
  for (std::size_t i = 0; i < rows; ++i) {
    if (!j[i].is_array() || j[i].size() != cols) throw Shape(std::string("'") + field + "' is not a rectangular array of rows");
    for (std::size_t k = 0; k < cols; ++k) {
      if (!j[i][k].is_number()) throw Shape(std::string("'") + field + "' has an entry that is not a number");
      m(static_cast<Index>(i), static_cast<Index>(k)) = j[i][k].get<double>();
    }
  }
  return m;
}
const Json& member(const Json& j, const char* key, const char* what) {
  if (!j.is_object() || !j.contains(key)) throw Shape(std::string("has no '") + key + "' " + what);
  return j.at(key);
}

// At most 60 characters of an answer, control characters shown as '?', for a message.
std::string excerpt(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 60)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return s.size() > 60 ? out + "..." : out;
}

// The state shared by the implementation and its trajectories: the command, the current process and
// its generation (a trajectory belongs to the process that started it), the lock of all exchanges.
class ExecClient {
 public:
  ExecClient(std::vector<std::string> argv, std::chrono::milliseconds timeout) : argv_(std::move(argv)), timeout_(timeout) {
    for (const auto& w : argv_) command_ += (command_.empty() ? "" : " ") + w;
  }

  // Starts the process if none runs and says hello; returns the hello's answer fields.
  void ensure_started() {
    if (proc_ && proc_->alive()) return;
    proc_.reset();
    proc_ = std::make_unique<LineProcess>(argv_);
    ++generation_;
    const Json a = exchange(Json{{"call", "hello"}, {"protocol", kConjugateNgd}, {"version", kConjugateNgdVersion}}, "hello", -1, -1);
    try {
      const Json& protocol = member(a, "protocol", "string");
      const Json& version = member(a, "version", "integer");
      if (!protocol.is_string() || protocol.get<std::string>() != kConjugateNgd || !version.is_number_integer() ||
          version.get<long>() != kConjugateNgdVersion)
        fail_kill("hello", -1, -1,
                  "speaks protocol " + protocol.dump() + " version " + version.dump() + ", ngvi speaks \"" + kConjugateNgd +
                      "\" version " + std::to_string(kConjugateNgdVersion));
      const Json& name = member(a, "name", "string");
      const Json& version_text = member(a, "implementation_version", "string");
      const Json& average = member(a, "average", "true/false");
      if (!name.is_string() || name.get<std::string>().empty()) throw Shape("has a 'name' that is not a non-empty string");
      if (!version_text.is_string()) throw Shape("has an 'implementation_version' that is not a string");
      if (!average.is_boolean()) throw Shape("has an 'average' that is not true or false");
      name_ = name.get<std::string>();
      version_ = version_text.get<std::string>();
      average_ = average.get<bool>();
    } catch (const Shape& e) {
      fail_kill("hello", -1, -1, "answered '" + excerpt(a.dump()) + "' which " + e.what());
    }
  }

  // One request and its answer on the process of `generation` (-1: the current one).
  Json call(const Json& request, const char* call, long run, long t, long generation) {
    if (!proc_ || !proc_->alive() || (generation >= 0 && generation != generation_))
      fail(call, run, t, "the process had ended before this call" + (ended_.empty() ? std::string() : " (" + ended_ + ")"));
    Json a = exchange(request, call, run, t);
    return a;
  }

  [[noreturn]] void fail(const char* call, long run, long t, const std::string& what) const {
    std::string where = "process '" + command_ + "', call '" + call + "'";
    if (run >= 0) where += " of run " + std::to_string(run);
    if (t >= 0) where += " at t = " + std::to_string(t);
    throw std::runtime_error(where + ": " + what);
  }
  // A failure after which the stream cannot be trusted: the process is killed first.
  [[noreturn]] void fail_kill(const char* call, long run, long t, const std::string& what) {
    if (proc_) proc_->kill_now();
    ended_ = "killed after call '" + std::string(call) + "' " + what;
    fail(call, run, t, what);
  }
  // Reads a shape error of an answer `a` to `call` as a failure (the process is killed).
  template <class Fn>
  auto parse(const Json& a, const char* call, long run, long t, Fn&& fn) {
    try {
      return fn();
    } catch (const Shape& e) {
      fail_kill(call, run, t, "answered '" + excerpt(a.dump()) + "' which " + e.what());
    } catch (const nlohmann::json::exception& e) {
      fail_kill(call, run, t, "answered '" + excerpt(a.dump()) + "' which is malformed: " + e.what());
    }
  }

  std::mutex& mutex() { return mutex_; }
  long generation() const { return generation_; }
  long next_run() { return next_run_++; }
  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  bool average() const { return average_; }
  bool alive(long generation) const { return proc_ && proc_->alive() && generation == generation_; }

 private:
  Json exchange(const Json& request, const char* call, long run, long t) {
    std::string line;
    try {
      line = proc_->exchange(request.dump(), timeout_);
    } catch (const ProcessFailure& e) {
      ended_ = std::string(e.what()) + " at call '" + call + "'";
      fail(call, run, t, e.what());
    }
    Json a;
    try {
      a = Json::parse(line);
    } catch (const nlohmann::json::exception&) {
      fail_kill(call, run, t, "answered '" + excerpt(line) + "' which is not JSON");
    }
    if (!a.is_object()) fail_kill(call, run, t, "answered '" + excerpt(line) + "' which is not a JSON object");
    if (a.contains("error")) {
      const Json& m = a.at("error");
      fail(call, run, t, "answered error: " + (m.is_string() ? m.get<std::string>() : m.dump()));
    }
    return a;
  }

  std::vector<std::string> argv_;
  std::string command_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::unique_ptr<LineProcess> proc_;
  long generation_ = 0;
  long next_run_ = 0;
  std::string name_, version_;
  bool average_ = false;
  std::string ended_;  ///< why the last process ended (for the calls of its trajectories after that)
};

// One trajectory: its run id and process generation; sends `end` when the last copy of its functions
// is released (if its process still runs).
struct Run {
  std::shared_ptr<ExecClient> client;
  long id = 0;
  long generation = 0;
  Run(std::shared_ptr<ExecClient> c, long i, long g) : client(std::move(c)), id(i), generation(g) {}
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() {
    std::lock_guard<std::mutex> lock(client->mutex());
    if (!client->alive(generation)) return;
    try {
      client->call(Json{{"call", "end"}, {"run", id}}, "end", id, -1, generation);
    } catch (const std::exception&) {
      // Releasing a trajectory cannot fail; the process's next call reports what went wrong.
    }
  }
};

}  // namespace

ConjugateNgd<double> exec_conjugate_ngd(const std::string& command, std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) throw std::invalid_argument("exec_conjugate_ngd: the timeout must be positive");
  auto client = std::make_shared<ExecClient>(split_command(command), timeout);
  {
    std::lock_guard<std::mutex> lock(client->mutex());
    client->ensure_started();
  }
  ConjugateNgd<double> impl;
  impl.name = client->name();
  impl.version = client->version();
  impl.serial = true;
  impl.start = [client](const BlrProblem<double>& p) {
    std::unique_lock<std::mutex> lock(client->mutex());
    client->ensure_started();  // a new process if the last one ended
    const long id = client->next_run();
    const long generation = client->generation();
    const Json problem{{"X", mat_json(p.X)},
                       {"y", vec_json(p.y)},
                       {"noise_var", p.noise_var},
                       {"prior_mean", vec_json(p.prior_mean)},
                       {"prior_cov", mat_json(p.prior_cov)},
                       {"prior_natural", natural_json(p.prior_natural)},
                       {"batch", static_cast<long>(p.batch)},
                       {"initial", natural_json(p.initial)}};
    const Json a = client->call(Json{{"call", "start"}, {"run", id}, {"problem", problem}}, "start", id, -1, generation);
    client->parse(a, "start", id, -1, [&] {
      const Json& ok = member(a, "ok", "true");
      if (!ok.is_boolean() || !ok.get<bool>()) throw Shape("has an 'ok' that is not true");
      return 0;
    });
    lock.unlock();
    auto run = std::make_shared<Run>(client, id, generation);
    ConjugateNgdTrajectory<double> traj;
    traj.step = [run](long t, const GaussianNatural<double>& eta, std::span<const Index> batch) {
      std::lock_guard<std::mutex> guard(run->client->mutex());
      Json b = Json::array();
      for (Index i : batch) b.push_back(static_cast<long>(i));
      const Json a = run->client->call(Json{{"call", "step"}, {"run", run->id}, {"t", t}, {"eta", natural_json(eta)}, {"batch", std::move(b)}},
                                       "step", run->id, t, run->generation);
      return run->client->parse(a, "step", run->id, t, [&] {
        const Json& e = member(a, "eta", "object");
        return GaussianNatural<double>(vec_from(member(e, "eta1", "array"), "eta1"), mat_from(member(e, "eta2", "array"), "eta2"));
      });
    };
    if (client->average()) {
      traj.average = [run] {
        std::lock_guard<std::mutex> guard(run->client->mutex());
        const Json a = run->client->call(Json{{"call", "average"}, {"run", run->id}}, "average", run->id, -1, run->generation);
        return run->client->parse(a, "average", run->id, -1, [&] {
          const Json& v = member(a, "average", "object");
          return GaussianExpectation<double>(vec_from(member(v, "mean", "array"), "mean"),
                                             mat_from(member(v, "second_moment", "array"), "second_moment"));
        });
      };
    }
    return traj;
  };
  return impl;
}

}  // namespace ngvi::protocols
