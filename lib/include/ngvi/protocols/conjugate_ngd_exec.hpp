#pragma once
/// @file
/// The conjugate-NGD protocol (conjugate_ngd.hpp) spoken to a child process over version 1 of the
/// line protocol (docs/protocol.md): `ngvi verify --algorithm 'exec:CMD ARGS'`. An implementation in
/// any language reads one JSON request per line on its stdin and writes one JSON answer per line on
/// its stdout; the calls are hello (once per process), start, step, average and end, each trajectory
/// named by a run id so that several may be open at once.
///
/// exec_conjugate_ngd starts the process, checks its hello (protocol and version) and returns an
/// implementation whose start/step/average forward to it. Numbers cross in JSON with shortest
/// round-trip precision both ways, so a client doing the same arithmetic in double returns bitwise
/// what it would in process. One process serves every trajectory: the calls of all threads go through
/// one lock, in turn (the implementation is `serial`). A call fails with a std::runtime_error naming
/// the command, the call, the run and the step, and what went wrong: an {"error": …} answer, an answer
/// that is not JSON or not of the call's shape (the process is then killed: the stream may be out of
/// step), or the process dying or not answering within the timeout (it is killed). A trajectory of a
/// process that has ended fails at its next call; the next start() starts a new process (and says
/// hello again), so the claims that follow are not lost. A trajectory that is released sends `end`.
#include <chrono>
#include <string>

#include "ngvi/protocols/conjugate_ngd.hpp"

namespace ngvi::protocols {

/// The prefix of `ngvi verify --algorithm` that names a command.
inline constexpr const char* kExecPrefix = "exec:";
/// The default time a process has to answer one call (docs/protocol.md, "Timeouts").
inline constexpr std::chrono::milliseconds kDefaultExecTimeout{60000};

/// Starts `command` (split as split_command does; no shell), says hello and returns the implementation
/// (name and version from its hello; `serial`; an average iff the hello said "average": true).
/// @throws ProcessStartError (exec_process.hpp) if the program cannot be started; std::runtime_error
///         naming the command if the hello fails (a protocol or version other than conjugate-ngd v1, an
///         answer that is not JSON or lacks a field, the process dying or not answering in time);
///         std::invalid_argument if the command is empty or has an unbalanced quote or the timeout is
///         not positive.
ConjugateNgd<double> exec_conjugate_ngd(const std::string& command,
                                        std::chrono::milliseconds timeout = kDefaultExecTimeout);

}  // namespace ngvi::protocols
