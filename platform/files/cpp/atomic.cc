#include "platform/files/cpp/atomic.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace rocke::files {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

[[noreturn]] void fail(const std::string& path, const char* step, int err) {
  throw OutputError("cannot write " + path + ": " + step + " failed (" + std::strerror(err) +
                    "); check that its folder exists and is writable");
}

}  // namespace

void write_atomic(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) fail(path, "creating a temporary file beside it", errno);
  auto abandon = [&](const char* step) {
    const int err = errno;
    close(fd);
    unlink(tmp.c_str());
    fail(path, step, err);
  };
  // mkstemp makes 0600; a code object or IR file is for everyone to read.
  if (fchmod(fd, 0644) != 0) abandon("chmod");
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0) abandon("fsync");
  if (close(fd) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    fail(path, "close", err);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    fail(path, "rename", err);
  }
  // The rename is durable only once the folder is.
  const int dir = open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

}  // namespace rocke::files
