// docs/operators.md is generated from the code: this test registers every
// kernel (portable and optimized), lists each operator overload with the
// dtypes each of its kernels declares (runtime/kernels/dtype_set.h), and
// compares the result with the committed table. To regenerate the table after adding
// kernels or cases:
//
//   EF_WRITE_OPERATOR_TABLE=1 build/default/runtime/kernels/coverage/ef_operator_table_test

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"

namespace edgefleet {
namespace {

struct Row {
  const Kernel* portable = nullptr;
  const Kernel* optimized = nullptr;
};

// "float32, int64" for the declared set; whole families are named once
// ("integral": uint8, int8, int16, int32, int64; "floating": float32,
// float64). "-" for a kernel without tensor arguments.
std::string DtypeNames(DtypeSet set) {
  std::string names;
  const auto add = [&names](const char* name) {
    names += (names.empty() ? "" : ", ") + std::string(name);
  };
  DtypeSet rest = set;
  if (rest.Contains(ScalarType::kBool)) {
    add("bool");
    rest = rest - DtypeSet{ScalarType::kBool};
  }
  if ((kIntegralDtypes - set).empty()) {
    add("integral");
    rest = rest - kIntegralDtypes;
  }
  if ((kFloatingDtypes - set).empty()) {
    add("floating");
    rest = rest - kFloatingDtypes;
  }
  for (int t = 0; t < 64; ++t) {
    if (IsValidScalarType(t) && rest.Contains(static_cast<ScalarType>(t))) {
      add(ScalarTypeName(static_cast<ScalarType>(t)));
    }
  }
  return names.empty() ? "-" : names;
}

std::string BuildTable() {
  std::map<std::string, Row> rows;
  for (int i = 0; i < NumRegisteredKernels(); ++i) {
    const Kernel& k = RegisteredKernel(i);
    Row& row = rows[k.name];
    (k.variant == KernelVariant::kPortable ? row.portable : row.optimized) = &k;
  }
  int portable = 0, optimized = 0;
  for (const auto& [name, row] : rows) {
    portable += row.portable != nullptr;
    optimized += row.optimized != nullptr;
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
      << rows.size() << " operator overloads: " << portable << " with a portable kernel, "
      << optimized
      << " with an optimized kernel (chosen per call at load time when it "
         "supports the call's arguments, else the portable one runs).\n\n"
      << "*dtypes* is what each kernel declares where it is registered\n"
         "(`runtime/kernels/dtype_set.h`): the dtypes it accepts for the\n"
         "call's first tensor argument. A program whose call has another\n"
         "dtype there fails at load time. *integral* is uint8, int8, int16,\n"
         "int32 and int64; *floating* is float32 and float64. The portable\n"
         "kernels' torch reference test "
         "(`runtime/kernels/portable/torch_reference_test.cc`)\n"
         "checks each declaration against what the kernel accepts on the\n"
         "operator's torch cases.\n\n"
      << "| operator | portable dtypes | optimized dtypes |\n"
      << "|---|---|---|\n";
  for (const auto& [name, row] : rows) {
    out << "| `" << name << "` | "
        << (row.portable != nullptr ? DtypeNames(row.portable->dtypes) : "no kernel") << " | "
        << (row.optimized != nullptr ? DtypeNames(row.optimized->dtypes) : "-") << " |\n";
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
