// docs/operators.md is generated from the code: this test registers every
// kernel (portable and optimized), lists each operator overload with its
// variants and the input dtypes its torch reference cases check
// (runtime/kernels/portable/testdata/reference.json), and compares the
// result with the committed table. To regenerate the table after adding
// kernels or cases:
//
//   EF_WRITE_OPERATOR_TABLE=1 build/default/runtime/kernels/coverage/ef_operator_table_test

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"

namespace edgefleet {
namespace {

struct Row {
  bool portable = false;
  bool optimized = false;
  std::set<std::string> dtypes;  // input dtypes checked against torch
};

// The dtype of the first tensor argument of each value case, per operator.
void AddReferenceDtypes(std::map<std::string, Row>* rows) {
  std::ifstream in(EF_PORTABLE_REFERENCE);
  ASSERT_TRUE(in.good()) << "cannot open " << EF_PORTABLE_REFERENCE;
  const nlohmann::json reference = nlohmann::json::parse(in);
  for (const auto& c : reference.at("cases")) {
    if (c.value("error", false)) continue;
    const std::string op = c.at("op").get<std::string>();
    ASSERT_TRUE(rows->count(op)) << "reference case for unregistered " << op;
    for (const auto& a : c.at("args")) {
      const nlohmann::json* t = nullptr;
      if (a.contains("tensor")) t = &a["tensor"];
      if (a.contains("tensor_list") && !a["tensor_list"].empty()) {
        t = &a["tensor_list"][0];
      }
      if (t != nullptr) {
        (*rows)[op].dtypes.insert(t->at("dtype").get<std::string>());
        break;
      }
    }
  }
}

std::string BuildTable() {
  std::map<std::string, Row> rows;
  for (int i = 0; i < NumRegisteredKernels(); ++i) {
    const Kernel& k = RegisteredKernel(i);
    Row& row = rows[k.name];
    (k.variant == KernelVariant::kPortable ? row.portable : row.optimized) =
        true;
  }
  AddReferenceDtypes(&rows);
  int portable = 0, optimized = 0;
  for (const auto& [name, row] : rows) {
    portable += row.portable;
    optimized += row.optimized;
  }
  std::ostringstream out;
  out << "# Operator coverage\n\n"
      << "Generated from the code by "
         "`runtime/kernels/coverage/operator_table_test.cc`; do not edit.\n"
      << "Regenerate with\n"
         "`EF_WRITE_OPERATOR_TABLE=1 "
         "build/default/runtime/kernels/coverage/ef_operator_table_test`\n"
      << "(`ctest -R coverage` fails while this file and the registry "
         "disagree).\n\n"
      << rows.size() << " operator overloads: " << portable
      << " with a portable kernel, " << optimized
      << " with an optimized kernel (chosen per call at load time when it "
         "supports the call's arguments, else the portable one runs).\n\n"
      << "*dtypes* lists the input dtypes of the operator's cases in\n"
         "`runtime/kernels/portable/testdata/reference.json`, whose outputs\n"
         "PyTorch computed (`make_reference.py`); `-` means the operator is\n"
         "covered by the hand-written unit tests next to its kernel only.\n\n"
      << "| operator | portable | optimized | dtypes |\n"
      << "|---|---|---|---|\n";
  for (const auto& [name, row] : rows) {
    std::string dtypes;
    for (const std::string& d : row.dtypes) {
      dtypes += (dtypes.empty() ? "" : ", ") + d;
    }
    out << "| `" << name << "` | " << (row.portable ? "yes" : "-") << " | "
        << (row.optimized ? "yes" : "-") << " | "
        << (dtypes.empty() ? "-" : dtypes) << " |\n";
  }
  return out.str();
}

TEST(OperatorTable, DocsMatchRegistry) {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
  ASSERT_EQ(RegisterOptimizedKernels(1), Error::kOk);
  const std::string table = BuildTable();
  if (std::getenv("EF_WRITE_OPERATOR_TABLE") != nullptr) {
    std::ofstream(EF_OPERATOR_TABLE) << table;
  }
  std::ifstream in(EF_OPERATOR_TABLE);
  ASSERT_TRUE(in.good()) << "missing " << EF_OPERATOR_TABLE;
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), table)
      << "docs/operators.md is out of date; regenerate it (see its header)";
}

}  // namespace
}  // namespace edgefleet
