// The transport of `ngvi verify --algorithm exec:CMD` (protocols/exec_process.hpp) and the hello of the
// conjugate-NGD line protocol (protocols/conjugate_ngd_exec.hpp), with /bin/sh and /bin/cat as the
// child: words split like a shell's, one line each way, and every way a child can fail (it exits, is
// killed, hangs past the timeout, cannot be started, answers garbage or another protocol) an error
// that says which, with the child reaped (no zombie).
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/protocols/conjugate_ngd_exec.hpp"
#include "ngvi/protocols/exec_process.hpp"

namespace ngvi::protocols {
namespace { namespace NGVI_UNITY_ID {

using std::chrono::milliseconds;
using Words = std::vector<std::string>;

// The message of what `fn` throws as E ("" if it throws nothing).
template <class E, class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool reaped(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST(SplitCommand, PlainWordsAndQuotesAsAShellSplitsThem) {
  EXPECT_EQ(split_command("python3 client.py --x 1"), (Words{"python3", "client.py", "--x", "1"}));
  EXPECT_EQ(split_command("  a\t 'b c'  \"d \\\"e\\\" \\\\\" f\\ g "), (Words{"a", "b c", "d \"e\" \\", "f g"}));
  EXPECT_EQ(split_command("a'b'\"c\"d"), (Words{"abcd"}));
  EXPECT_EQ(split_command("''"), (Words{""}));
  EXPECT_THROW(split_command("a 'b"), std::invalid_argument);
  EXPECT_THROW(split_command("a \"b"), std::invalid_argument);
  EXPECT_THROW(split_command("   "), std::invalid_argument);
}

TEST(LineProcess, ExchangesOneLineEachWay) {
  LineProcess cat({"cat"});
  EXPECT_TRUE(cat.alive());
  EXPECT_EQ(cat.exchange("{\"x\": 1.5}", milliseconds(5000)), "{\"x\": 1.5}");
  const std::string big(200000, 'a');  // more than a pipe holds: the write waits for the reader
  EXPECT_EQ(cat.exchange(big, milliseconds(5000)), big);
}

TEST(LineProcess, ADeadChildIsReapedAndItsStatusNamed) {
  LineProcess quits({"sh", "-c", "read line; exit 9"});
  const pid_t pid = quits.pid();
  EXPECT_EQ(message_of<ProcessFailure>([&] { quits.exchange("hi", milliseconds(5000)); }), "exited with status 9 before answering");
  EXPECT_FALSE(quits.alive());
  EXPECT_TRUE(reaped(pid));
  EXPECT_THROW(quits.exchange("again", milliseconds(100)), std::logic_error);

  LineProcess killed({"sh", "-c", "read line; kill -KILL $$"});
  EXPECT_EQ(message_of<ProcessFailure>([&] { killed.exchange("hi", milliseconds(5000)); }),
            "was killed by signal 9 (KILL) before answering");
}

TEST(LineProcess, AHangIsKilledAtTheTimeout) {
  LineProcess hangs({"sleep", "30"});
  const pid_t pid = hangs.pid();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(message_of<ProcessFailure>([&] { hangs.exchange("hi", milliseconds(200)); }), "gave no answer within 0.200 s (killed)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(reaped(pid));
}

TEST(LineProcess, DestructionEndsAndReapsTheChild) {
  pid_t pid = 0;
  {
    LineProcess sleeper({"sleep", "30"});  // does not read its stdin: killed after the grace period
    pid = sleeper.pid();
  }
  EXPECT_TRUE(reaped(pid));
}

TEST(LineProcess, AProgramThatCannotStartIsAStartError) {
  const auto m = message_of<ProcessStartError>([] { LineProcess p({"/no/such/program-ngvi"}); });
  EXPECT_NE(m.find("cannot start '/no/such/program-ngvi'"), std::string::npos) << m;
  EXPECT_NE(m.find("No such file"), std::string::npos) << m;
}

TEST(ExecConjugateNgd, TheHelloIsChecked) {
  const auto ok = exec_conjugate_ngd(
      R"(sh -c 'read l; echo "{\"protocol\":\"conjugate-ngd\",\"version\":1,\"name\":\"sh-ngd\",\"implementation_version\":\"0.1\",\"average\":false}"; cat >/dev/null')",
      milliseconds(5000));
  EXPECT_EQ(ok.name, "sh-ngd");
  EXPECT_EQ(ok.version, "0.1");
  EXPECT_TRUE(ok.serial);
  const auto other = message_of<std::runtime_error>([] {
    exec_conjugate_ngd(R"(sh -c 'read l; echo "{\"protocol\":\"conjugate-ngd\",\"version\":2,\"name\":\"x\",\"implementation_version\":\"\",\"average\":true}"')",
                       milliseconds(5000));
  });
  EXPECT_NE(other.find("call 'hello': speaks protocol \"conjugate-ngd\" version 2, ngvi speaks \"conjugate-ngd\" version 1"),
            std::string::npos)
      << other;
  const auto garbage = message_of<std::runtime_error>([] { exec_conjugate_ngd("sh -c 'read l; echo garbage; cat'", milliseconds(5000)); });
  EXPECT_NE(garbage.find("call 'hello': answered 'garbage' which is not JSON"), std::string::npos) << garbage;
  const auto error = message_of<std::runtime_error>([] {
    exec_conjugate_ngd(R"(sh -c 'read l; echo "{\"error\": \"no\"}"; cat')", milliseconds(5000));
  });
  EXPECT_NE(error.find("call 'hello': answered error: no"), std::string::npos) << error;
  EXPECT_THROW(exec_conjugate_ngd("/no/such/program-ngvi", milliseconds(5000)), ProcessStartError);
}

}}  // namespace
}  // namespace ngvi::protocols
