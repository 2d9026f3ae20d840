#include "toolchains/llvm/cpp/compile.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace rocke::llvm {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw LlvmError(std::string("cannot make a pipe: ") + std::strerror(errno));
  }
  ~Pipe() { close_both(); }
  void close_end(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
  void close_both() {
    close_end(0);
    close_end(1);
  }
};

// A temporary folder removed with its files when it goes out of scope.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    path = std::string(base && *base ? base : "/tmp") + "/rocke-llvm-XXXXXX";
    if (!mkdtemp(path.data()))
      throw LlvmError("cannot make a temporary folder in " + path + ": " + std::strerror(errno));
  }
  ~TempDir() {
    unlink((path + "/k.o").c_str());
    unlink((path + "/k.hsaco").c_str());
    rmdir(path.c_str());
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string run(const std::vector<std::string>& argv, std::string_view input, std::string_view what) {
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw LlvmError(std::string(what) + ": cannot run " + argv[0] + " (" + std::strerror(spawned) +
                    "); pass the bin folder of an installed LLVM");
  }
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  // Feed stdin and drain both outputs together: a tool that fills its
  // output pipe before reading all its input would otherwise deadlock.
  std::string stdout_text, stderr_text;
  std::size_t fed = 0;
  // A tool that exits before reading all its input must give this write
  // EPIPE, not kill the program with SIGPIPE: block it in this thread while
  // feeding, then discard one that arrived (the C interface never exits).
  sigset_t pipe_signal, old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  if (input.empty()) in.close_end(1);
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3];
    int n = 0;
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.fd[1]) {
        const ssize_t w = write(in.fd[1], input.data() + fed, input.size() - fed);
        if (w > 0) fed += static_cast<std::size_t>(w);
        if (w < 0 || fed == input.size()) in.close_end(1);
        continue;
      }
      char buf[65536];
      const ssize_t r = read(fds[i].fd, buf, sizeof buf);
      const bool is_out = fds[i].fd == out.fd[0];
      if (r <= 0) {
        (is_out ? out : err).close_end(0);
        continue;
      }
      (is_out ? stdout_text : stderr_text).append(buf, static_cast<std::size_t>(r));
    }
  }
  in.close_end(1);
  const timespec no_wait{0, 0};
  while (sigtimedwait(&pipe_signal, nullptr, &no_wait) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw LlvmError(std::string(what) + " failed: " + (stderr_text.empty() ? "no message" : stderr_text));
  }
  return stdout_text;
}

std::string target_cpu(std::string_view ll) {
  static constexpr std::string_view kKey = "\"target-cpu\"=\"";
  const auto at = ll.find(kKey);
  const auto end = at == std::string_view::npos ? at : ll.find('"', at + kKey.size());
  if (end == std::string_view::npos) {
    throw LlvmError(
        "LLVM IR: expected a function attribute \"target-cpu\"=\"gfx...\" (rocke's lowering writes one), got none");
  }
  return std::string(ll.substr(at + kKey.size(), end - at - kKey.size()));
}

std::string compile_and_link(std::string_view ll, const std::string& llvm_bin) {
  const std::string cpu = "-mcpu=" + target_cpu(ll);
  // The middle end first, as Toolchain.compile does (see its docstring).
  const std::string bitcode = run({llvm_bin + "/opt", "-O2", cpu, "-o", "-", "-"}, ll, "opt -O2 " + cpu);
  const std::string obj = run({llvm_bin + "/llc", "-O2", cpu, "-filetype=obj", "-o", "-", "-"}, bitcode, "llc " + cpu);
  TempDir tmp;
  {
    std::ofstream o(tmp.path + "/k.o", std::ios::binary);
    o.write(obj.data(), static_cast<std::streamsize>(obj.size()));
    if (!o) throw LlvmError("cannot write the object to " + tmp.path);
  }
  run({llvm_bin + "/ld.lld", "-shared", "--no-undefined", tmp.path + "/k.o", "-o", tmp.path + "/k.hsaco"}, "",
      "ld.lld --no-undefined");
  return read_file(tmp.path + "/k.hsaco");
}

}  // namespace rocke::llvm
