// edgefleet-mutate: a mutation campaign over real .pte files.
//
//   edgefleet-mutate [--mutations N] [--seed S] [--budget-ms MS] [--batch B]
//                    [--crash-dir DIR] file.pte...
//
// Each file gets N seeded mutations (byte-level: bit flips, truncation,
// insertion, deletion, interesting integers; field-level: edits inside the
// flatbuffer via the object API; or both). Each case is loaded, inspected,
// initialized into bounded arenas and executed in-process (fuzz_harness.h),
// and the outcome is tallied by stage and Error kind.
//
// Crashes and hangs cannot be caught in-process, so cases run in a forked
// worker per batch that reports each outcome over a pipe: a worker that
// dies is a crash of the case it was running; one silent for longer than
// the per-case budget is a hang (the runtime itself caps a method at 10M
// instructions). Either way the mutated file is written to --crash-dir and
// the campaign continues. Run it from the fuzz build (ASan + UBSan) so that
// memory errors become crashes; the GCC build catches only hard faults.
//
// Memory: the harness allocates exactly the file copy, the planned arenas
// the program declares (capped at 64 MiB per method; larger programs are
// "skipped"), method_allocator_bytes() and a 4 MiB temp arena; the table
// reports the largest of each and the workers' peak RSS.

#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "fuzz/pte_mutator.h"

namespace edgefleet {
namespace fuzz {
namespace {

struct Options {
  uint64_t mutations = 1000;
  uint64_t seed = 1;
  int budget_ms = 10000;
  uint64_t batch = 500;
  std::string crash_dir = "mutation-findings";
  std::vector<std::string> files;
};

enum Family : uint8_t { kRaw, kField, kBoth, kNumFamilies };
const char* const kFamilyNames[] = {"byte", "field", "field+byte"};

// One case's outcome, written by the worker to the pipe.
struct Record {
  uint64_t index;
  uint8_t stage;
  uint32_t error;
  uint8_t family;
  uint64_t file_size, planned, method_bytes, temp_peak, constant_bytes;
};

struct Case {
  std::vector<uint8_t> bytes;
  Family family;
};

Case MakeCase(const std::vector<uint8_t>& original, uint64_t seed) {
  MutationRng rng(seed);
  Case c{original, static_cast<Family>(rng() % kNumFamilies)};
  if (c.family != kRaw && MutateStructured(&c.bytes, rng, 1 + rng() % 3) == nullptr) {
    c.family = kRaw;
  }
  if (c.family != kField) {
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits; ++i) MutateRaw(&c.bytes, rng);
  }
  return c;
}

uint64_t CaseSeed(const Options& o, uint64_t index) {
  return o.seed * 0x9E3779B97F4A7C15ull ^ (index + 1) * 0xBF58476D1CE4E5B9ull;
}

struct Campaign {
  const Options& options;
  std::vector<std::vector<uint8_t>> originals;
  std::map<std::pair<int, uint32_t>, uint64_t> by_stage_error;  // (stage, error)
  uint64_t crashes = 0, hangs = 0, done = 0;
  uint64_t accepted[kNumFamilies] = {}, total[kNumFamilies] = {};
  uint64_t max_planned = 0, max_method = 0, max_temp = 0, max_constants = 0;
  double max_method_ratio = 0;
  long max_rss_kb = 0;
  std::vector<std::string> findings;

  uint64_t NumCases() const { return originals.size() * options.mutations; }
  Case Build(uint64_t index) const {
    return MakeCase(originals[index / options.mutations], CaseSeed(options, index));
  }

  void RunWorker(uint64_t begin, uint64_t end, int fd) const {
    Limits limits;
    for (uint64_t i = begin; i < end; ++i) {
      Case c = Build(i);
      const Outcome o =
          ExerciseProgram(c.bytes.data(), c.bytes.size(), limits, CaseSeed(options, i));
      Record r{i,
               static_cast<uint8_t>(o.stage),
               static_cast<uint32_t>(o.error),
               c.family,
               c.bytes.size(),
               o.planned_bytes,
               o.method_bytes,
               o.temp_peak,
               o.constant_bytes};
      if (write(fd, &r, sizeof(r)) != sizeof(r)) _exit(3);
    }
    _exit(0);
  }

  void Tally(const Record& r) {
    ++by_stage_error[{r.stage, r.error}];
    ++total[r.family];
    if (static_cast<Stage>(r.stage) != Stage::kLoad) ++accepted[r.family];
    if (r.planned > max_planned) max_planned = r.planned;
    if (r.method_bytes > max_method) max_method = r.method_bytes;
    if (r.temp_peak > max_temp) max_temp = r.temp_peak;
    if (r.constant_bytes > max_constants) max_constants = r.constant_bytes;
    if (r.file_size > 0) {
      const double ratio = static_cast<double>(r.method_bytes) / static_cast<double>(r.file_size);
      if (ratio > max_method_ratio) max_method_ratio = ratio;
    }
    ++done;
  }

  void SaveFinding(uint64_t index, const char* kind) {
    Case c = Build(index);
    // "crash-<index of the file>-<mutation>.pte"; the table lists the files.
    const std::string path = options.crash_dir + "/" + kind + "-" +
                             std::to_string(index / options.mutations) + "-" +
                             std::to_string(index % options.mutations) + ".pte";
    std::error_code ec;
    std::filesystem::create_directories(options.crash_dir, ec);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size());
    findings.push_back(std::string(kind) + ": " + path + " (mutant of " +
                       options.files[index / options.mutations] + ")");
  }

  // Runs cases [begin, end) in one worker; returns the first case not done.
  uint64_t RunBatch(uint64_t begin, uint64_t end) {
    int fds[2];
    if (pipe(fds) != 0) {
      perror("pipe");
      exit(2);
    }
    fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      RunWorker(begin, end, fds[1]);
    }
    close(fds[1]);
    uint64_t next = begin;
    bool hung = false;
    while (next < end) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, options.budget_ms) == 0) {
        hung = true;
        kill(pid, SIGKILL);
        break;
      }
      Record r;
      if (read(fds[0], &r, sizeof(r)) != sizeof(r)) break;  // worker died
      Tally(r);
      next = r.index + 1;
    }
    close(fds[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    if (usage.ru_maxrss > max_rss_kb) max_rss_kb = usage.ru_maxrss;
    if (next < end) {
      if (hung) {
        ++hangs;
        SaveFinding(next, "hang");
      } else {
        ++crashes;
        SaveFinding(next, "crash");
      }
      ++next;
    }
    return next;
  }

  void Print() const {
    printf("\n%-34s %10s %10s %10s %10s %10s\n", "outcome (Error kind)", "load", "method_load",
           "set_input", "execute", "total");
    std::map<uint32_t, std::vector<uint64_t>> rows;
    uint64_t success = 0, skipped = 0;
    for (const auto& [key, count] : by_stage_error) {
      const auto stage = static_cast<Stage>(key.first);
      if (stage == Stage::kDone) {
        success += count;
        continue;
      }
      if (stage == Stage::kSkipped) {
        skipped += count;
        continue;
      }
      auto& row = rows[key.second];
      row.resize(4, 0);
      row[key.first] += count;
    }
    for (const auto& [error, row] : rows) {
      printf("clean error: %-22s %10llu %10llu %10llu %10llu %10llu\n",
             ErrorName(static_cast<Error>(error)), (unsigned long long)row[0],
             (unsigned long long)row[1], (unsigned long long)row[2], (unsigned long long)row[3],
             (unsigned long long)(row[0] + row[1] + row[2] + row[3]));
    }
    printf("%-34s %54llu\n", "success (all methods executed)", (unsigned long long)success);
    printf("%-34s %54llu\n", "skipped (arenas > 64 MiB/method)", (unsigned long long)skipped);
    printf("%-34s %54llu\n", "crash", (unsigned long long)crashes);
    printf("%-34s %54llu\n", "hang", (unsigned long long)hangs);
    printf("%-34s %54llu\n", "cases", (unsigned long long)(done + crashes + hangs));
    printf("\naccepted by Program::Load:");
    for (int f = 0; f < kNumFamilies; ++f) {
      printf("  %s %llu/%llu", kFamilyNames[f], (unsigned long long)accepted[f],
             (unsigned long long)total[f]);
    }
    printf(
        "\npeak memory: planned arenas %llu B, method allocator %llu B (max %.1fx file "
        "size), kernel scratch %llu B, derived constants %llu B, worker max RSS %ld KiB\n",
        (unsigned long long)max_planned, (unsigned long long)max_method, max_method_ratio,
        (unsigned long long)max_temp, (unsigned long long)max_constants, max_rss_kb);
    for (const std::string& f : findings) printf("FINDING %s\n", f.c_str());
  }
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](uint64_t* out) {
      if (i + 1 >= argc) return false;
      *out = strtoull(argv[++i], nullptr, 10);
      return true;
    };
    uint64_t v = 0;
    if (a == "--mutations") {
      if (!value(&o->mutations)) return false;
    } else if (a == "--seed") {
      if (!value(&o->seed)) return false;
    } else if (a == "--batch") {
      if (!value(&o->batch) || o->batch == 0) return false;
    } else if (a == "--budget-ms") {
      if (!value(&v)) return false;
      o->budget_ms = static_cast<int>(v);
    } else if (a == "--crash-dir" && i + 1 < argc) {
      o->crash_dir = argv[++i];
    } else if (!a.empty() && a[0] == '-')
      return false;
    else
      o->files.push_back(a);
  }
  return !o->files.empty();
}

}  // namespace
}  // namespace fuzz
}  // namespace edgefleet

int main(int argc, char** argv) {
  using namespace edgefleet::fuzz;
  Options options;
  if (!ParseArgs(argc, argv, &options)) {
    fprintf(stderr,
            "usage: edgefleet-mutate [--mutations N] [--seed S] [--budget-ms MS] [--batch B]\n"
            "                        [--crash-dir DIR] file.pte...\n");
    return 2;
  }
  Campaign campaign{options, {}, {}};
  for (const std::string& f : options.files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      fprintf(stderr, "cannot read %s\n", f.c_str());
      return 2;
    }
    campaign.originals.emplace_back(std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>());
  }
  InitRuntimeOnce();  // Before fork: kernel names feed field edits.
  const uint64_t n = campaign.NumCases();
  for (uint64_t next = 0; next < n;) {
    next = campaign.RunBatch(next, std::min(n, next + options.batch));
    fprintf(stderr, "\r%llu/%llu cases", (unsigned long long)next, (unsigned long long)n);
  }
  fprintf(stderr, "\n");
  printf("files: %zu, mutations per file: %llu, seed: %llu\n", options.files.size(),
         (unsigned long long)options.mutations, (unsigned long long)options.seed);
  campaign.Print();
  return campaign.crashes + campaign.hangs == 0 ? 0 : 1;
}
