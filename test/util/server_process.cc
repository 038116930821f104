#include "test/util/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace edgefleet {
namespace testing {
namespace {

// The directories MakeTempDir made, removed (with what tests wrote in them)
// when the process that made them exits normally; a forked child that exits
// leaves them to its parent.
struct MadeDirs {
  std::mutex mu;
  std::vector<std::string> paths;
  pid_t owner = getpid();
};

MadeDirs& Made() {
  static auto* made = new MadeDirs;  // never destroyed: used at exit
  return *made;
}

void RemoveMadeDirs() {
  MadeDirs& made = Made();
  std::lock_guard<std::mutex> lock(made.mu);
  if (getpid() != made.owner) return;
  for (const std::string& path : made.paths) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

pid_t Spawn(const std::vector<std::string>& args, const std::string& log_path) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log >= 0) {
    dup2(log, STDERR_FILENO);
    dup2(log, STDOUT_FILENO);
  }
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  perror("execv");
  _exit(127);
}

}  // namespace

std::vector<std::string> DefaultServerFlags() {
  return {"--model_repository=test/fixtures",
          "--device_classes=deploy/device_classes,test/service/testdata/device_classes",
          "--arms=test/service/testdata/arms.textproto", "--calibration_samples=3",
          "--shutdown_grace_s=0"};
}

std::string MakeTempDir() {
  std::string pattern = "/tmp/edgefleet-test-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return "/tmp";
  MadeDirs& made = Made();
  std::lock_guard<std::mutex> lock(made.mu);
  if (made.paths.empty()) std::atexit(RemoveMadeDirs);
  made.paths.push_back(pattern);
  return pattern;
}

bool ServerProcess::Start(const std::vector<std::string>& flags) {
  dir_ = MakeTempDir();
  std::vector<std::string> args = {EF_SERVER_BINARY, "--port=0", "--metrics_port=0",
                                   "--port_file=" + dir_ + "/ports"};
  args.insert(args.end(), flags.begin(), flags.end());
  pid_ = Spawn(args, dir_ + "/server.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream ports(dir_ + "/ports");
    if (ports >> grpc_port_ >> metrics_port_) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string ServerProcess::log() const {
  std::ifstream in(dir_ + "/server.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int ServerProcess::Terminate() {
  if (pid_ <= 0) return -1000;
  kill(pid_, SIGTERM);
  return WaitExit();
}

int ServerProcess::WaitExit() {
  if (pid_ <= 0) return -1000;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return ExitCode(status);
}

int RunCalibrate(const std::vector<std::string>& flags, const std::string& out) {
  const std::string dir = MakeTempDir();
  std::vector<std::string> args = {EF_SERVER_BINARY, "calibrate", "--out=" + out};
  args.insert(args.end(), flags.begin(), flags.end());
  const pid_t pid = Spawn(args, dir + "/calibrate.log");
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream log(dir + "/calibrate.log");
  std::stringstream text;
  text << log.rdbuf();
  fprintf(stderr, "%s", text.str().c_str());
  return ExitCode(status);
}

std::string FetchMetrics(int port) {
  const std::string command = "curl -sf http://127.0.0.1:" + std::to_string(port) + "/metrics";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string body;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) body.append(buffer, n);
  pclose(pipe);
  return body;
}

}  // namespace testing
}  // namespace edgefleet
