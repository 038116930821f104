#include "loadtest/tools/campaign.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "loadtest/driver/fleet_plan.h"
#include "loadtest/driver/preflight.h"
#include "loadtest/report/format.h"
#include "loadtest/stats/proportion.h"
#include "loadtest/stats/sequential.h"
#include "loadtest/tools/experiment_runner.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

using Json = nlohmann::ordered_json;

bool IsClaim(Verdict v) { return v == Verdict::kRegression || v == Verdict::kImprovement; }

const ScopeReport* FindScope(const Report& r, const std::string& name) {
  for (const ScopeReport& s : r.scopes) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const QuantileRow* Row(const MetricReport& m, double p) {
  for (const QuantileRow& q : m.quantiles) {
    if (q.diff.p == p) return &q;
  }
  return nullptr;
}

Json RowJson(const QuantileRow* q) {
  if (q == nullptr) return nullptr;
  auto num = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
  return {{"rel", num(q->diff.rel)},
          {"lower", num(q->diff.rel_lower)},
          {"upper", num(q->diff.rel_upper)}};
}

// Claims (regression or improvement) in a report: "scope metric" strings.
std::vector<std::string> Claims(const Report& r) {
  std::vector<std::string> claims;
  for (const ScopeReport& s : r.scopes) {
    for (const MetricReport& m : s.metrics) {
      if (IsClaim(m.verdict)) claims.push_back(s.name + " " + MetricName(m.metric));
    }
    for (const RateReport* rate : {&s.anr, &s.oom, &s.failure}) {
      if (IsClaim(rate->verdict)) claims.push_back(s.name + " " + rate->name);
    }
  }
  return claims;
}

std::string Rate(int64_t events, int64_t trials) {
  if (trials == 0) return "—";
  const RateInterval w = WilsonInterval(events, trials, 0.95);
  return std::to_string(events) + "/" + std::to_string(trials) + " = " + FormatPercent(w.rate) +
         " [" + FormatPercent(w.lower) + ", " + FormatPercent(w.upper) + "]";
}

// One experiment kind: A/A, or effect X on a target scope.
struct Kind {
  std::string arm_b;
  double effect = 0;
  std::string target;  // Scope whose change is injected; "" for A/A.
};

struct Tally {
  int runs = 0;
  int any_claim = 0;
  std::map<std::string, int> claims_by_metric;  // metric or rate name
  std::map<std::string, int> status;
  // Overall steady latency per quantile: within ±2 %, CI contains 0,
  // worst |rel|.
  std::map<double, int> within2, contains0;
  std::map<double, double> worst;
  double worst_pooled_p50 = 0;
  // Effect runs, in the target scope's steady latency.
  int regression_verdict = 0;
  std::map<double, int> ci_above0;
  std::map<double, double> rel_sum;
  int claims_elsewhere = 0;
  int looks_sum = 0;
  // A/A runs, overall steady latency's per-session geometric-mean change
  // by estimator ("unadjusted" or the covariate): runs, sum of squared
  // estimates (A/A: the true change is 0), CI widths, CIs containing 0,
  // reported variance ratios.
  struct MeanTally {
    int runs = 0;
    double sum_sq = 0, width_sum = 0, ratio_sum = 0;
    int contains0 = 0;
  };
  std::map<std::string, MeanTally> session_mean;
};

void TallyMean(const std::string& name, const MeanChange& c, double ratio, Tally* t) {
  Tally::MeanTally& m = t->session_mean[name];
  ++m.runs;
  m.sum_sq += c.estimate * c.estimate;
  m.width_sum += c.upper - c.lower;
  m.ratio_sum += ratio;
  m.contains0 += c.lower <= 0 && c.upper >= 0;
}

Json ChangeJson(const MeanChange& c) {
  return {{"rel", c.estimate}, {"lower", c.lower}, {"upper", c.upper}};
}

constexpr double kPs[3] = {0.5, 0.9, 0.99};

}  // namespace

std::string EffectArmName(const std::string& arm_a, double effect,
                          const std::string& device_class) {
  char scale[32];
  std::snprintf(scale, sizeof(scale), "%.3f", 1 + effect);
  std::string s = scale;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return arm_a + ".x" + s + (device_class.empty() ? "" : "." + device_class);
}

absl::StatusOr<std::string> RunCampaign(const CampaignOptions& o, std::ostream& runs_jsonl) {
  std::vector<Kind> kinds = {{o.spec.arm_a(), 0, ""}};
  for (double x : o.effects) {
    kinds.push_back({EffectArmName(o.spec.arm_a(), x, ""), x, kOverallScope});
    if (!o.effect_class.empty()) {
      kinds.push_back({EffectArmName(o.spec.arm_a(), x, o.effect_class), x, o.effect_class});
    }
  }
  // As `run`: an unreachable server, or an arm or class it lacks or cannot
  // run, is an error before the first run, not runs of harness errors.
  for (const Kind& kind : kinds) {
    v1::FleetSpec spec = o.spec;
    spec.set_arm_b(kind.arm_b);
    PreflightOptions preflight;
    preflight.addresses = o.driver.addresses;
    preflight.credentials = o.driver.credentials;
    preflight.tls_server_name = o.driver.tls_server_name;
    if (absl::StatusOr<PreflightResult> checked = Preflight(spec, preflight); !checked.ok()) {
      return checked.status();
    }
  }
  std::vector<Tally> tallies(kinds.size());
  for (size_t k = 0; k < kinds.size(); ++k) {
    const Kind& kind = kinds[k];
    const int runs = kind.target.empty() ? o.aa_runs : o.effect_runs;
    Tally& t = tallies[k];
    for (int run = 0; run < runs; ++run) {
      v1::FleetSpec spec = o.spec;
      spec.set_arm_b(kind.arm_b);
      // Distinct seeds per kind and run: fresh devices, assignment, noise.
      spec.set_seed(o.spec.seed() + 1000003ull * k + static_cast<uint64_t>(run));
      absl::StatusOr<FleetPlan> plan = ExpandFleet(spec, ShardSpec{});
      if (!plan.ok()) return plan.status();
      absl::StatusOr<ExperimentOutcome> out = RunExperiment(*plan, o.driver, o.analysis, o.looks);
      if (!out.ok()) return out.status();
      const Report& r = out->report;
      if (out->stats.harness_errors > 0) {
        return absl::UnavailableError("run " + std::to_string(run) + " of " + kind.arm_b + ": " +
                                      std::to_string(out->stats.harness_errors) +
                                      " harness errors; driver: " + DescribeStats(out->stats));
      }
      ++t.runs;
      t.looks_sum += r.look;
      ++t.status[RunStatusName(r.status)];
      const ScopeReport& overall = r.scopes.front();
      const MetricReport& steady = overall.metrics[static_cast<int>(Metric::kSteadyLatency)];
      Json line = {{"arm_b", kind.arm_b},
                   {"effect", kind.effect},
                   {"target", kind.target},
                   {"seed", spec.seed()},
                   {"status", RunStatusName(r.status)},
                   {"look", r.look},
                   {"estimator", steady.estimator}};
      Json rows = Json::object();
      for (double p : kPs) rows["p" + FormatNumber(100 * p)] = RowJson(Row(steady, p));
      line["overall_steady"] = rows;
      const SessionMeanReport& sm = steady.session_mean;
      if (sm.present && !sm.adjusted.empty()) {
        Json mean = {{"unadjusted", ChangeJson(sm.unadjusted)}};
        for (const AdjustedMeanChange& a : sm.adjusted) {
          mean[a.covariate] = ChangeJson(a.change);
          mean[a.covariate]["variance_ratio"] = a.variance_ratio;
        }
        line["overall_steady_session_mean"] = mean;
        if (kind.target.empty()) {
          TallyMean("unadjusted", sm.unadjusted, 1.0, &t);
          for (const AdjustedMeanChange& a : sm.adjusted) {
            TallyMean(a.covariate, a.change, a.variance_ratio, &t);
          }
        }
      }
      for (const QuantileComparison& q : steady.pooled) {
        if (q.p == 0.5) {
          line["pooled_steady_p50"] = q.rel;
          t.worst_pooled_p50 = std::max(t.worst_pooled_p50, std::fabs(q.rel));
        }
      }
      // Claims at any look: monitoring must not hide an earlier one.
      std::vector<std::string> claims;
      for (const Report& earlier : out->earlier_looks) {
        for (std::string& c : Claims(earlier)) claims.push_back(std::move(c));
      }
      for (std::string& c : Claims(r)) claims.push_back(std::move(c));
      std::sort(claims.begin(), claims.end());
      claims.erase(std::unique(claims.begin(), claims.end()), claims.end());
      line["claims"] = claims;
      if (kind.target.empty()) {
        t.any_claim += !claims.empty();
        std::map<std::string, int> seen;
        for (const std::string& c : claims) seen[c.substr(c.find(' ') + 1)] = 1;
        for (const auto& [name, one] : seen) t.claims_by_metric[name] += one;
        for (double p : kPs) {
          const QuantileRow* q = Row(steady, p);
          if (q == nullptr) continue;
          t.within2[p] += std::fabs(q->diff.rel) <= 0.02;
          t.contains0[p] += q->diff.rel_lower <= 0 && q->diff.rel_upper >= 0;
          t.worst[p] = std::max(t.worst[p], std::fabs(q->diff.rel));
        }
      } else {
        const ScopeReport* target = FindScope(r, kind.target);
        if (target == nullptr) {
          return absl::InvalidArgumentError("no scope " + kind.target + " in the report");
        }
        const MetricReport& m = target->metrics[static_cast<int>(Metric::kSteadyLatency)];
        t.regression_verdict += m.verdict == Verdict::kRegression;
        Json target_rows = Json::object();
        for (double p : kPs) {
          const QuantileRow* q = Row(m, p);
          target_rows["p" + FormatNumber(100 * p)] = RowJson(q);
          if (q == nullptr) continue;
          t.ci_above0[p] += q->diff.rel_lower > 0;
          t.rel_sum[p] += q->diff.rel;
        }
        line["target_steady"] = target_rows;
        line["target_verdict"] = VerdictName(m.verdict);
        // A claim anywhere but the target's (and, for a fleet-wide effect,
        // every scope's) latency-derived metrics is a false claim.
        for (const std::string& c : claims) {
          const std::string scope = c.substr(0, c.find(' '));
          const std::string what = c.substr(c.find(' ') + 1);
          const bool latency =
              what == "steady_latency" || what == "first_inference" || what == "load_time";
          const bool in_target =
              kind.target == kOverallScope || scope == kind.target || scope == kOverallScope;
          if (!(latency && in_target)) {
            ++t.claims_elsewhere;
            break;
          }
        }
      }
      runs_jsonl << line.dump() << "\n";
      runs_jsonl.flush();
      if (o.progress != nullptr) {
        *o.progress << "campaign " << kind.arm_b << " run " << run + 1 << "/" << runs << ": "
                    << RunStatusName(r.status)
                    << (claims.empty() ? "" : " claims: " + claims.front()) << "\n";
      }
    }
  }

  // Summary.
  const v1::FleetSpec& s = o.spec;
  std::ostringstream md;
  md << "## Calibration campaign\n\nSpec `" << s.name() << "`: " << s.devices() << " devices, "
     << (s.assignment() == v1::ASSIGNMENT_HASHED ? "hashed" : "paired") << " design, "
     << s.inferences_per_session() << " inferences per session, " << s.population_size()
     << " classes; base arm `" << s.arm_a() << "`; " << FormatNumber(100 * o.analysis.confidence)
     << " % intervals, θ = " << FormatSignedPercent(o.analysis.min_effect) << ", "
     << o.analysis.bootstrap_replicates << " bootstrap replicates"
     << (o.looks > 1
             ? ", group-sequential with " + std::to_string(o.looks) + " looks (Lan-DeMets " +
                   SpendingName(o.analysis.spending) + " alpha spending)"
             : std::string())
     << ".\n\n";
  const Tally& aa = tallies[0];
  md << "### A/A (" << aa.runs << " runs)\n\n"
     << "| false positives | runs with a claim [Wilson 95 %] |\n|---|---|\n"
     << "| any claim (overall FPR) | " << Rate(aa.any_claim, aa.runs) << " |\n";
  for (const char* name :
       {"load_time", "first_inference", "steady_latency", "peak_memory", "anr", "oom", "failure"}) {
    const auto it = aa.claims_by_metric.find(name);
    md << "| " << name << " | " << Rate(it == aa.claims_by_metric.end() ? 0 : it->second, aa.runs)
       << " |\n";
  }
  md << "\nStatus:";
  for (const auto& [status, n] : aa.status) md << " " << status << " " << n << ";";
  md << " mean stopping look " << FormatNumber(aa.runs ? double(aa.looks_sum) / aa.runs : 0)
     << ".\n\n| overall steady latency (stratified) | within ±2 % | 95 % CI "
        "contains 0 | worst abs change |\n|---|---|---|---|\n";
  for (double p : kPs) {
    md << "| p" << FormatNumber(100 * p) << " | "
       << Rate(aa.within2.count(p) ? aa.within2.at(p) : 0, aa.runs) << " | "
       << Rate(aa.contains0.count(p) ? aa.contains0.at(p) : 0, aa.runs) << " | "
       << FormatPercent(aa.worst.count(p) ? aa.worst.at(p) : 0) << " |\n";
  }
  md << "\nPooled (secondary) overall steady p50: worst abs change "
     << FormatPercent(aa.worst_pooled_p50) << ".\n\n";
  if (!aa.session_mean.empty()) {
    const Tally::MeanTally& plain = aa.session_mean.at("unadjusted");
    const double plain_var = plain.runs ? plain.sum_sq / plain.runs : 0;
    md << "Variance reduction, overall steady latency (change of the per-session "
          "geometric mean, stats/cuped.h):\n\n"
       << "| estimator | runs | A/A RMS change | variance vs unadjusted | mean CI width "
          "| CI width vs unadjusted | CI contains 0 | mean reported variance ratio |\n"
          "|---|---|---|---|---|---|---|---|\n";
    for (const auto& [name, m] : aa.session_mean) {
      const double var = m.runs ? m.sum_sq / m.runs : 0;
      const double width = m.runs ? m.width_sum / m.runs : 0;
      const double plain_width = plain.runs ? plain.width_sum / plain.runs : 0;
      md << "| " << name << " | " << m.runs << " | " << FormatPercent(std::sqrt(var)) << " | "
         << FormatNumber(plain_var > 0 ? var / plain_var : NAN) << " | " << FormatPercent(width)
         << " | " << FormatNumber(plain_width > 0 ? width / plain_width : NAN) << " | "
         << Rate(m.contains0, m.runs) << " | " << FormatNumber(m.runs ? m.ratio_sum / m.runs : NAN)
         << " |\n";
    }
    md << "\n";
  }
  if (kinds.size() > 1) {
    md << "### Injected slowdowns (arm B = arm A × (1 + X) device compute time)\n\n"
       << "| X | target | runs | regression verdict (power) | p50 CI above 0 | "
          "p90 CI above 0 | mean est. p50 | mean est. p90 | runs with a claim "
          "elsewhere | mean stopping look |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (size_t k = 1; k < kinds.size(); ++k) {
      const Tally& t = tallies[k];
      const auto get = [](const std::map<double, int>& m, double p) {
        return m.count(p) ? m.at(p) : 0;
      };
      const auto mean = [&t](double p) {
        return t.runs && t.rel_sum.count(p) ? t.rel_sum.at(p) / t.runs : 0.0;
      };
      md << "| " << FormatSignedPercent(kinds[k].effect) << " | " << kinds[k].target << " | "
         << t.runs << " | " << Rate(t.regression_verdict, t.runs) << " | "
         << Rate(get(t.ci_above0, 0.5), t.runs) << " | " << Rate(get(t.ci_above0, 0.9), t.runs)
         << " | " << FormatSignedPercent(mean(0.5)) << " | " << FormatSignedPercent(mean(0.9))
         << " | " << Rate(t.claims_elsewhere, t.runs) << " | "
         << FormatNumber(t.runs ? double(t.looks_sum) / t.runs : 0) << " |\n";
    }
  }
  return md.str();
}

}  // namespace loadtest
}  // namespace edgefleet
