#include "loadtest/results/results_json.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

using Json = nlohmann::ordered_json;

Json SessionToJson(const SessionRecord& r) {
  Json j;
  j["device_id"] = r.device_id;
  j["session"] = r.session_index;
  j["arm"] = ArmName(r.arm);
  j["class"] = r.device_class;
  j["outcome"] = OutcomeName(r.outcome);
  if (!r.error_cause.empty()) j["error_cause"] = r.error_cause;
  j["retries"] = r.retries;
  j["load_us"] = {r.load_read_us, r.load_parse_us, r.load_init_us};
  j["first_inference_us"] = r.first_inference_us;
  j["latencies_us"] = r.latencies_us;
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["anr"] = r.anr_count;
  j["frames"] = {r.slow_frames, r.frozen_frames, r.total_frames};
  if (r.device_time_factor > 0 || r.pre_period_us >= 0) {
    Json c = Json::object();
    if (r.device_time_factor > 0) c["device_time_factor"] = r.device_time_factor;
    if (r.pre_period_us >= 0) c["pre_period_us"] = r.pre_period_us;
    j["covariates"] = c;
  }
  return j;
}

SessionRecord SessionFromJson(const Json& j) {
  SessionRecord r;
  r.device_id = j.at("device_id").get<uint64_t>();
  r.session_index = j.at("session").get<uint32_t>();
  if (!ParseArm(j.at("arm").get<std::string>(), &r.arm)) {
    throw std::invalid_argument("bad arm");
  }
  r.device_class = j.at("class").get<std::string>();
  if (!ParseOutcome(j.at("outcome").get<std::string>(), &r.outcome)) {
    throw std::invalid_argument("bad outcome");
  }
  if (j.contains("error_cause")) {
    r.error_cause = j["error_cause"].get<std::string>();
  }
  r.retries = j.at("retries").get<uint32_t>();
  const Json& load = j.at("load_us");
  if (load.size() != 3) throw std::invalid_argument("load_us needs 3 values");
  r.load_read_us = load[0].get<int64_t>();
  r.load_parse_us = load[1].get<int64_t>();
  r.load_init_us = load[2].get<int64_t>();
  r.first_inference_us = j.at("first_inference_us").get<int64_t>();
  r.latencies_us = j.at("latencies_us").get<std::vector<int64_t>>();
  r.peak_memory_bytes = j.at("peak_memory_bytes").get<int64_t>();
  r.anr_count = j.at("anr").get<uint32_t>();
  const Json& frames = j.at("frames");
  if (frames.size() != 3) throw std::invalid_argument("frames needs 3 values");
  r.slow_frames = frames[0].get<uint32_t>();
  r.frozen_frames = frames[1].get<uint32_t>();
  r.total_frames = frames[2].get<uint32_t>();
  if (j.contains("covariates")) {
    const Json& c = j["covariates"];
    if (c.contains("device_time_factor")) {
      r.device_time_factor = c["device_time_factor"].get<double>();
      if (!(r.device_time_factor > 0 && std::isfinite(r.device_time_factor))) {
        throw std::invalid_argument("covariates.device_time_factor must be > 0 and finite");
      }
    }
    if (c.contains("pre_period_us")) {
      r.pre_period_us = c["pre_period_us"].get<int64_t>();
      if (r.pre_period_us < 0) throw std::invalid_argument("covariates.pre_period_us must be >= 0");
    }
  }
  return r;
}

}  // namespace

std::string ResultSetToJson(const ResultSet& results) {
  const ExperimentInfo& info = results.info();
  Json j;
  j["schema"] = kResultsSchema;
  j["experiment"] = {{"name", info.name},
                     {"seed", info.seed},
                     {"design", DesignName(info.design)},
                     {"arm_a", info.arm_a},
                     {"arm_b", info.arm_b},
                     {"share_b", info.share_b},
                     {"spec_digest", info.spec_digest}};
  if (!info.calibration.empty()) j["experiment"]["calibration"] = info.calibration;
  if (!info.class_shares.empty()) {
    j["experiment"]["class_shares"] = info.class_shares;
  }
  j["shard"] = {{"index", results.shard().index}, {"count", results.shard().count}};
  Json sessions = Json::array();
  for (const SessionRecord& r : results.records()) {
    sessions.push_back(SessionToJson(r));
  }
  j["sessions"] = std::move(sessions);
  return j.dump() + "\n";
}

absl::StatusOr<ResultSet> ResultSetFromJson(std::string_view text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("not valid JSON");
  size_t index = 0;
  try {
    if (j.at("schema").get<std::string>() != kResultsSchema) {
      return absl::InvalidArgumentError("unknown schema " + j["schema"].dump());
    }
    const Json& e = j.at("experiment");
    ExperimentInfo info;
    info.name = e.at("name").get<std::string>();
    info.seed = e.at("seed").get<uint64_t>();
    if (!ParseDesign(e.at("design").get<std::string>(), &info.design)) {
      return absl::InvalidArgumentError("unknown design " + e["design"].dump());
    }
    info.arm_a = e.at("arm_a").get<std::string>();
    info.arm_b = e.at("arm_b").get<std::string>();
    info.share_b = e.at("share_b").get<double>();
    info.spec_digest = e.at("spec_digest").get<std::string>();
    info.calibration = e.value("calibration", std::string());
    if (e.contains("class_shares")) {
      info.class_shares = e.at("class_shares").get<std::map<std::string, double>>();
      for (const auto& [name, share] : info.class_shares) {
        if (!(share > 0 && share <= 1)) {
          return absl::InvalidArgumentError("class share of " + name + " not in (0, 1]");
        }
      }
    }
    ShardSpec shard;
    shard.index = j.at("shard").at("index").get<uint32_t>();
    shard.count = j.at("shard").at("count").get<uint32_t>();
    if (shard.count == 0 || shard.index >= shard.count) {
      return absl::InvalidArgumentError("bad shard " + j["shard"].dump());
    }
    ResultSet results(std::move(info), shard);
    const Json& sessions = j.at("sessions");
    results.Reserve(sessions.size());
    for (; index < sessions.size(); ++index) {
      results.Add(SessionFromJson(sessions[index]));
    }
    return results;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError("results JSON, near session " + std::to_string(index) + ": " +
                                      e.what());
  }
}

absl::Status WriteResultSetFile(const ResultSet& results, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << ResultSetToJson(results);
  out.close();
  if (!out) return absl::UnavailableError("cannot write " + path);
  return absl::OkStatus();
}

absl::StatusOr<ResultSet> ReadResultSetFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<ResultSet> results = ResultSetFromJson(buffer.str());
  if (!results.ok()) {
    return absl::Status(results.status().code(),
                        path + ": " + std::string(results.status().message()));
  }
  return results;
}

}  // namespace loadtest
}  // namespace edgefleet
