#include "platform/files/cpp/atomic.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "platform/cpp/testing/check.h"

namespace {

std::string tmpdir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int entries(const std::string& dir) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

ROCKE_TEST(writes_replaces_and_leaves_no_temporary) {
  const std::string dir = tmpdir() + "/atomic_ok";
  mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/out.txt";
  rocke::files::write_atomic(path, "first");
  rocke::files::write_atomic(path, std::string("sec\0ond", 7));
  CHECK_EQ(slurp(path), std::string("sec\0ond", 7));
  struct stat st;
  CHECK_EQ(stat(path.c_str(), &st), 0);
  CHECK_EQ(st.st_mode & 0777, 0644u);
  CHECK_EQ(entries(dir), 1);
}

ROCKE_TEST(missing_folder_is_one_clear_error_and_writes_nothing) {
  const std::string path = tmpdir() + "/no/such/folder/out.txt";
  CHECK_THROWS(rocke::files::OutputError, rocke::files::write_atomic(path, "x"),
               "cannot write " + path +
                   ": creating a temporary file beside it failed (No such file or directory); "
                   "check that its folder exists and is writable");
}

}  // namespace

int main() { return rocke::testing::run_all(); }
