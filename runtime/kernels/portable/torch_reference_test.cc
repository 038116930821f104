// Replays the cases of testdata/reference_<i>.json (written by
// testdata/make_reference.py with PyTorch) through the registered portable
// kernels: each case's arguments are built as boxed values, the kernel is
// resolved by operator name from the registry (so registration is covered
// too) and every output is compared with torch's values. Error cases expect
// the kernel to fail with a detail that names the operator, or the registry
// to refuse the call (a first tensor dtype the kernel does not declare).

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/core/error_detail.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/register_portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

using nlohmann::json;

// The cases of every testdata/reference_<i>.json, in order, as one object.
const json& Reference() {
  static const json* const data = [] {
    json all = json::object();
    all["cases"] = json::array();
    for (int i = 0;; ++i) {
      std::ifstream in(std::string(EF_PORTABLE_REFERENCE_DIR) + "/reference_" + std::to_string(i) +
                       ".json");
      if (!in) break;
      json shard = json::parse(in);
      for (json& c : shard.at("cases")) all["cases"].push_back(std::move(c));
    }
    EXPECT_FALSE(all["cases"].empty()) << "no cases in " << EF_PORTABLE_REFERENCE_DIR;
    return new json(std::move(all));
  }();
  return *data;
}

ScalarType DtypeFromName(const std::string& name) {
  static const std::pair<const char*, ScalarType> kNames[] = {
      {"uint8", ScalarType::kByte},     {"int8", ScalarType::kChar},
      {"int16", ScalarType::kShort},    {"int32", ScalarType::kInt},
      {"int64", ScalarType::kLong},     {"float32", ScalarType::kFloat},
      {"float64", ScalarType::kDouble}, {"bool", ScalarType::kBool},
      {"float16", ScalarType::kHalf},   {"bfloat16", ScalarType::kBFloat16}};
  for (const auto& [n, t] : kNames) {
    if (name == n) return t;
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return ScalarType::kFloat;
}

double JsonNumber(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    return s == "inf" ? INFINITY : -INFINITY;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return v.get<double>();
}

// A tensor of any element dtype built from a JSON description; owns its
// metadata and data. Values are in logical order whatever the dim order.
class JsonTensor {
 public:
  explicit JsonTensor(const json& spec)
      : dtype_(DtypeFromName(spec.at("dtype").get<std::string>())) {
    for (const auto& s : spec.at("sizes")) sizes_.push_back(s.get<int32_t>());
    if (spec.contains("dim_order")) {
      for (const auto& d : spec["dim_order"]) {
        dim_order_.push_back(d.get<uint8_t>());
      }
    } else {
      for (size_t i = 0; i < sizes_.size(); ++i) dim_order_.push_back(i);
    }
    strides_.resize(sizes_.size() + 1);
    int64_t numel = 1;
    for (int32_t s : sizes_) numel *= s;
    storage_.assign(static_cast<size_t>(numel > 0 ? numel : 1) + 1, 0);
    tensor_ = std::make_unique<Tensor>(dtype_, static_cast<int>(sizes_.size()), sizes_.data(),
                                       dim_order_.data(), strides_.data(), storage_.data(),
                                       ShapeDynamism::kDynamicBound);
    tensor_->set_numel_bound(numel);
    evalue_ = EValue::FromTensor(tensor_.get());
    const json& values = spec.at("values");
    for (size_t i = 0; i < values.size(); ++i) Store(i, values[i]);
  }
  JsonTensor(const JsonTensor&) = delete;
  JsonTensor& operator=(const JsonTensor&) = delete;

  Tensor& tensor() { return *tensor_; }
  EValue* ev() { return &evalue_; }

  // Element `flat` (logical order) as double; int64 as int64 via `exact`.
  double Get(int64_t flat, int64_t* exact) const {
    double v = 0;
    SwitchElement(dtype_, [&](auto tag) {
      using T = decltype(tag);
      v = LoadAs<double, T>(At(flat));
      if constexpr (std::is_integral_v<T>) *exact = LoadAs<int64_t, T>(At(flat));
    });
    return v;
  }

 private:
  void Store(size_t flat, const json& value) {
    SwitchElement(dtype_, [&](auto tag) {
      using T = decltype(tag);
      T x;
      if constexpr (std::is_floating_point_v<T> || kIsReducedFloat<T>) {
        x = Convert<T>(JsonNumber(value));
      } else if constexpr (std::is_same_v<T, bool>) {
        x = JsonNumber(value) != 0;
      } else {
        x = static_cast<T>(value.get<int64_t>());
      }
      std::memcpy(At(static_cast<int64_t>(flat)), &x, sizeof(T));
    });
  }

  char* At(int64_t flat) const {
    int64_t offset = 0;
    for (int d = tensor_->dim() - 1; d >= 0; --d) {
      const int64_t size = tensor_->size(d);
      offset += (flat % size) * tensor_->stride(d);
      flat /= size;
    }
    return reinterpret_cast<char*>(storage_.data()) +
           offset * static_cast<int64_t>(ElementSize(dtype_));
  }

  ScalarType dtype_;
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  mutable std::vector<uint64_t> storage_;
  std::unique_ptr<Tensor> tensor_;
  EValue evalue_;
};

// The boxed arguments of one case and everything they point into.
class CaseArgs {
 public:
  explicit CaseArgs(const json& c) {
    const json& outputs = c.at("outputs");
    // A functional op's Out marks its return value, not an argument.
    const bool functional = c.value("functional", false);
    for (const json& a : c.at("args")) {
      EValue* v = Build(a, outputs);
      if (!(functional && a.contains("out"))) args_.push_back(v);
    }
    // In-place ops return (and are checked through) an updated argument.
    if (c.contains("inplace")) {
      outs_.push_back(arg_tensors_.at(c["inplace"].get<size_t>()));
    }
    // The return slot: the out tensor itself, or the list of outs.
    if (outs_.size() == 1) {
      args_.push_back(outs_[0]->ev());
    } else {
      std::vector<EValue*> items;
      for (JsonTensor* t : outs_) items.push_back(t->ev());
      args_.push_back(AddTensorList(items, false));
    }
  }

  Span<EValue*> args() { return {args_.data(), args_.size()}; }
  // The out tensors in schema order.
  const std::vector<JsonTensor*>& outs() const { return outs_; }
  // The tensor built for argument `i` (for in-place updated inputs).
  JsonTensor* tensor_arg(size_t i) { return arg_tensors_.at(i); }

 private:
  EValue* Build(const json& a, const json& outputs) {
    arg_tensors_.push_back(nullptr);
    if (a.contains("tensor")) {
      JsonTensor* t = AddTensor(a["tensor"]);
      arg_tensors_.back() = t;
      return t->ev();
    }
    if (a.contains("out") || a.contains("out_spec")) {
      JsonTensor* t = AddTensor(
          a.contains("out") ? WithoutValues(outputs.at(a["out"].get<size_t>())) : a["out_spec"]);
      outs_.push_back(t);
      return t->ev();
    }
    scalars_.push_back(std::make_unique<EValue>());
    EValue& v = *scalars_.back();
    if (a.contains("int")) {
      v = EValue::FromInt(a["int"].get<int64_t>());
    } else if (a.contains("double")) {
      v = EValue::FromDouble(JsonNumber(a["double"]));
    } else if (a.contains("bool")) {
      v = EValue::FromBool(a["bool"].get<bool>());
    } else if (a.contains("string")) {
      strings_.push_back(a["string"].get<std::string>());
      v = EValue::FromString(strings_.back().data(), strings_.back().size());
    } else if (a.contains("int_list")) {
      return AddIntList(a["int_list"]);
    } else if (a.contains("bool_list")) {
      bool_lists_.push_back(std::make_unique<std::vector<uint8_t>>());
      for (const json& b : a["bool_list"]) bool_lists_.back()->push_back(b.get<bool>() ? 1 : 0);
      v = EValue::FromBoolList(bool_lists_.back()->data(), bool_lists_.back()->size());
    } else if (a.contains("tensor_list") || a.contains("optional_tensor_list")) {
      const bool optional = a.contains("optional_tensor_list");
      std::vector<EValue*> items;
      for (const json& t : a[optional ? "optional_tensor_list" : "tensor_list"]) {
        items.push_back(t.is_null() ? nullptr : AddTensor(t)->ev());
      }
      return AddTensorList(items, optional);
    } else if (!a.contains("none")) {
      ADD_FAILURE() << "unknown argument " << a.dump();
    }
    return &v;
  }

  static json WithoutValues(json spec) {
    spec["values"] = json::array();
    return spec;
  }

  JsonTensor* AddTensor(const json& spec) {
    tensors_.push_back(std::make_unique<JsonTensor>(spec));
    return tensors_.back().get();
  }

  EValue* AddIntList(const json& values) {
    auto list = std::make_unique<IntList>();
    for (const json& v : values) {
      list->items.push_back(EValue::FromInt(v.get<int64_t>()));
    }
    for (EValue& e : list->items) list->ptrs.push_back(&e);
    list->unboxed.resize(list->items.size());
    list->boxed = {list->ptrs.data(), list->unboxed.data(), list->items.size()};
    list->value = EValue::FromIntList(&list->boxed);
    int_lists_.push_back(std::move(list));
    return &int_lists_.back()->value;
  }

  EValue* AddTensorList(const std::vector<EValue*>& items, bool optional) {
    auto list = std::make_unique<TensorListValue>();
    list->items = items;
    list->unboxed.resize(items.size());
    list->boxed = {list->items.data(), list->unboxed.data(), items.size()};
    list->value = EValue::FromTensorList(&list->boxed, optional);
    tensor_lists_.push_back(std::move(list));
    return &tensor_lists_.back()->value;
  }

  struct IntList {
    std::vector<EValue> items;
    std::vector<EValue*> ptrs;
    std::vector<int64_t> unboxed;
    BoxedIntList boxed;
    EValue value;
  };
  struct TensorListValue {
    std::vector<EValue*> items;
    std::vector<Tensor*> unboxed;
    BoxedTensorList boxed;
    EValue value;
  };

  std::vector<std::unique_ptr<JsonTensor>> tensors_;
  std::vector<std::unique_ptr<EValue>> scalars_;
  std::vector<std::string> strings_;
  std::vector<std::unique_ptr<IntList>> int_lists_;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> bool_lists_;
  std::vector<std::unique_ptr<TensorListValue>> tensor_lists_;
  std::vector<EValue*> args_;
  std::vector<JsonTensor*> arg_tensors_;
  std::vector<JsonTensor*> outs_;
};

// Expects `actual` to hold the expected tensor: same dtype, shape and
// values (floating: within atol + rtol * |expected|, NaN where NaN).
void ExpectTensor(JsonTensor& actual, const json& expected, double rtol, double atol,
                  const std::string& what) {
  Tensor& t = actual.tensor();
  ASSERT_EQ(ScalarTypeName(t.dtype()),
            std::string(ScalarTypeName(DtypeFromName(expected.at("dtype").get<std::string>()))))
      << what;
  std::vector<int32_t> sizes(t.sizes().begin(), t.sizes().end());
  ASSERT_EQ(sizes, expected.at("sizes").get<std::vector<int32_t>>()) << what;
  const json& values = expected.at("values");
  ASSERT_EQ(static_cast<size_t>(t.numel()), values.size()) << what;
  const bool floating = IsFloatingType(t.dtype());
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t exact = 0;
    const double got = actual.Get(static_cast<int64_t>(i), &exact);
    if (!floating) {
      const int64_t want =
          values[i].is_boolean() ? values[i].get<bool>() : values[i].get<int64_t>();
      EXPECT_EQ(exact, want) << what << " at " << i;
      continue;
    }
    const double want = JsonNumber(values[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << what << " at " << i << ": " << got;
    } else if (std::isinf(want)) {
      EXPECT_EQ(got, want) << what << " at " << i;
    } else {
      EXPECT_NEAR(got, want, atol + rtol * std::fabs(want)) << what << " at " << i;
    }
  }
}

class TorchReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(RegisterPortableKernels(), Error::kOk); }
};

// Runs case `c` through the registered portable kernel and checks it.
void RunCase(const json& c) {
  const std::string name = c.at("name").get<std::string>();
  const std::string op = c.at("op").get<std::string>();
  SCOPED_TRACE(name + " (" + op + ")");
  CaseArgs args(c);
  const Kernel* kernel = ResolveKernel(op.c_str(), args.args(), KernelPreference::kPortableOnly);
  if (kernel == nullptr && c.value("error", false) && HasKernel(op.c_str())) {
    return;  // the first tensor's dtype is not declared: refused at load
  }
  ASSERT_NE(kernel, nullptr) << op << " has no portable kernel";
  std::vector<uint64_t> temp_memory((1 << 20) / 8);
  MemoryAllocator temp(temp_memory.data(), 1 << 20);
  KernelContext ctx(&temp, 1);
  ClearErrorDetail();
  kernel->fn(ctx, args.args());
  if (c.value("error", false)) {
    EXPECT_NE(ctx.failure(), Error::kOk) << "expected a failure";
    EXPECT_NE(std::string(LastErrorDetail()).find(op), std::string::npos)
        << "detail should name the operator: " << LastErrorDetail();
    return;
  }
  ASSERT_EQ(ctx.failure(), Error::kOk) << LastErrorDetail();
  const json& outputs = c.at("outputs");
  ASSERT_EQ(args.outs().size(), outputs.size());
  const double rtol = c.value("rtol", 1e-5);
  const double atol = c.value("atol", 1e-6);
  for (size_t i = 0; i < outputs.size(); ++i) {
    ExpectTensor(*args.outs()[i], outputs[i], rtol, atol, "output " + std::to_string(i));
  }
  if (c.contains("updated")) {
    for (const json& u : c["updated"]) {
      ExpectTensor(*args.tensor_arg(u.at("arg").get<size_t>()), u.at("expect"), rtol, atol,
                   "updated argument");
    }
  }
}

// One test per operator: every case of that operator.
class TorchReferenceOp : public TorchReference,
                         public ::testing::WithParamInterface<std::string> {};

TEST_P(TorchReferenceOp, MatchesTorch) {
  int count = 0;
  for (const json& c : Reference().at("cases")) {
    if (c.at("op").get<std::string>() != GetParam()) continue;
    RunCase(c);
    ++count;
  }
  EXPECT_GT(count, 0);
}

std::vector<std::string> ReferenceOperators() {
  std::set<std::string> ops;
  for (const json& c : Reference().at("cases")) {
    ops.insert(c.at("op").get<std::string>());
  }
  return {ops.begin(), ops.end()};
}

// "aten::max.dim_max" -> "aten_max_dim_max".
std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char ch : info.param) {
    const bool alnum =
        (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (alnum) {
      name += ch;
    } else if (name.empty() || name.back() != '_') {
      name += '_';
    }
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Ops, TorchReferenceOp, ::testing::ValuesIn(ReferenceOperators()),
                         TestName);

// Each operator named in the reference data has both value cases and
// error cases, so no operator is covered only by its failures.
TEST_F(TorchReference, EveryOperatorHasValueCases) {
  std::map<std::string, int> value_cases;
  for (const json& c : Reference().at("cases")) {
    const std::string op = c.at("op").get<std::string>();
    value_cases[op] += c.value("error", false) ? 0 : 1;
  }
  for (const auto& [op, count] : value_cases) {
    EXPECT_GT(count, 0) << op << " is only checked through error cases";
  }
}

// ------------------------------------------------- declared dtypes (probe)

const char* const kElementDtypeNames[] = {"bool",  "uint8",   "int8",    "int16",   "int32",
                                          "int64", "float32", "float64", "float16", "bfloat16"};

// `spec` (a tensor description) with dtype `to` and its values converted
// as a cast would (non-finite values become 0 in integer types).
void ConvertSpec(json* spec, const std::string& to) {
  (*spec)["dtype"] = to;
  const bool floating = IsFloatingType(DtypeFromName(to));
  for (json& v : (*spec)["values"]) {
    const double d = JsonNumber(v);
    if (floating) continue;
    if (to == "bool") {
      v = d != 0;
    } else {
      v = std::isfinite(d) ? static_cast<int64_t>(d) : int64_t{0};
    }
  }
}

// The tensor specs of case `c` (arguments, list items, out specs, torch's
// outputs), the first tensor argument first.
std::vector<json*> TensorSpecs(json* c) {
  std::vector<json*> specs;
  for (json& a : (*c)["args"]) {
    if (a.contains("tensor")) specs.push_back(&a["tensor"]);
    if (a.contains("out_spec")) specs.push_back(&a["out_spec"]);
    for (const char* key : {"tensor_list", "optional_tensor_list"}) {
      if (!a.contains(key)) continue;
      for (json& t : a[key]) {
        if (!t.is_null()) specs.push_back(&t);
      }
    }
  }
  for (json& o : (*c)["outputs"]) specs.push_back(&o);
  return specs;
}

// Whether `kernel` runs case `c` without failing once the case's first
// tensor argument has dtype `to`: that tensor alone converted; or every
// tensor (outputs included) that had its dtype; or that and also every int
// argument equal to the dtype's code (a ScalarType argument naming the
// input's dtype, as the quantize/dequantize ops take).
bool AcceptsDtype(const Kernel& kernel, const json& c, const std::string& to) {
  for (const int variant : {0, 1, 2}) {
    json probe = c;
    std::vector<json*> specs = TensorSpecs(&probe);
    if (specs.empty()) return false;
    const std::string from = specs[0]->at("dtype").get<std::string>();
    for (size_t i = 0; i < specs.size(); ++i) {
      if (i == 0 || (variant > 0 && specs[i]->at("dtype") == from)) {
        ConvertSpec(specs[i], to);
      }
    }
    if (variant == 2) {
      const int64_t from_code = static_cast<int64_t>(DtypeFromName(from));
      for (json& a : probe["args"]) {
        if (a.contains("int") && a["int"].get<int64_t>() == from_code) {
          a["int"] = static_cast<int64_t>(DtypeFromName(to));
        }
      }
    }
    CaseArgs args(probe);
    std::vector<uint64_t> temp_memory((1 << 20) / 8);
    MemoryAllocator temp(temp_memory.data(), 1 << 20);
    KernelContext ctx(&temp, 1);
    kernel.fn(ctx, args.args());
    if (!ctx.failed()) return true;
  }
  return false;
}

// The dtypes a portable kernel declares where it is registered (and that
// docs/operators.md lists) are the element dtypes it accepts: for every
// operator with torch cases, each element dtype is tried as the first tensor
// argument's on every value case; the kernel must run some case with each
// declared dtype and fail all of them with each undeclared one.
TEST_F(TorchReference, DeclaredDtypesAreTheAcceptedOnes) {
  std::map<std::string, std::vector<const json*>> cases;
  for (const json& c : Reference().at("cases")) {
    if (!c.value("error", false)) {
      cases[c.at("op").get<std::string>()].push_back(&c);
    }
  }
  for (int k = 0; k < NumRegisteredKernels(); ++k) {
    const Kernel& kernel = RegisteredKernel(k);
    if (kernel.variant != KernelVariant::kPortable) continue;
    const auto it = cases.find(kernel.name);
    if (it == cases.end()) continue;
    for (const char* dtype : kElementDtypeNames) {
      bool accepted = false;
      for (const json* c : it->second) {
        ClearErrorDetail();
        if (AcceptsDtype(kernel, *c, dtype)) {
          accepted = true;
          break;
        }
      }
      const bool declared = kernel.dtypes.Contains(DtypeFromName(dtype));
      EXPECT_EQ(accepted, declared)
          << kernel.name << " " << (declared ? "declares" : "does not declare") << " " << dtype
          << " but " << (accepted ? "runs a case with it" : "fails every case with it");
    }
  }
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
