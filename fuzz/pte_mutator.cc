// Field-aware and byte-level .pte mutations (see pte_mutator.h).

#include "fuzz/pte_mutator.h"

#include <cstring>
#include <limits>
#include <string>

#include "fuzz/pte_image.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace fuzz {
namespace {

namespace fb = edgefleet_fb;

const int64_t kInteresting[] = {0,         1,
                                -1,        2,
                                3,         4,
                                7,         8,
                                15,        16,
                                17,        31,
                                32,        63,
                                64,        127,
                                128,       255,
                                256,       1023,
                                1024,      4096,
                                65535,     65536,
                                1 << 20,   (1 << 30) - 1,
                                1 << 30,   INT32_MAX - 1,
                                INT32_MAX, -INT32_MAX,
                                INT32_MIN, 1ll << 31,
                                1ll << 32, (1ll << 32) - 1,
                                1ll << 40, INT64_MAX,
                                INT64_MIN};
const char* const kOpNames[] = {"aten::add",
                                "aten::convolution",
                                "aten::view_copy",
                                "aten::mm",
                                "aten::cat",
                                "aten::_softmax",
                                "aten::mean",
                                "aten::permute_copy",
                                "aten::max_pool2d_with_indices",
                                "aten::full",
                                "dim_order_ops::_to_dim_order_copy",
                                "aten::sym_size",
                                "executorch_prim::add",
                                "aten::nonexistent"};
const char* const kOverloads[] = {"out",     "Scalar_out", "int_out",  "IntList_out",
                                  "dim_out", "",           "out_mode", "Tensor"};
const char* const kBackendIds[] = {"XnnpackBackend", "VulkanBackend", "", "A"};
const int8_t kDtypes[] = {0,  1,  2,  3,  4,  5,  6,  7, 11, 12, 13, 14, 15,  16, 17,  22,
                          23, 24, 25, 26, 27, 28, 29, 8, 9,  10, 18, 30, 127, -1, -128};

class Editor {
 public:
  Editor(PteImage& image, MutationRng& rng) : image_(image), rng_(rng) {}

  const char* Apply();

 private:
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Coin() { return rng_() & 1; }
  int64_t Interesting() {
    if (Below(4) == 0) return static_cast<int64_t>(rng_());
    return kInteresting[Below(sizeof(kInteresting) / sizeof(kInteresting[0]))];
  }
  // A value index, usually in range, sometimes not.
  int32_t Index(size_t n) {
    if (Below(8) == 0) return static_cast<int32_t>(Interesting());
    return static_cast<int32_t>(Below(n + 1));
  }
  template <typename T>
  T* Pick(std::vector<std::unique_ptr<T>>& v) {
    return v.empty() ? nullptr : v[Below(v.size())].get();
  }
  template <typename T>
  void EditVector(std::vector<T>& v, T value) {
    switch (v.empty() ? 1 : Below(4)) {
      case 0:
        v[Below(v.size())] = value;
        break;
      case 1:
        v.insert(v.begin() + Below(v.size() + 1), value);
        break;
      case 2:
        v.erase(v.begin() + Below(v.size()));
        break;
      default: {  // Swap (by value: std::vector<bool> has proxy references).
        const size_t i = Below(v.size()), j = Below(v.size());
        const T tmp = v[i];
        v[i] = v[j];
        v[j] = tmp;
      }
    }
  }
  template <typename T>
  void DuplicateOrDrop(std::vector<std::unique_ptr<T>>& v) {
    if (!v.empty() && Coin()) {
      v.erase(v.begin() + Below(v.size()));
    } else if (!v.empty()) {
      v.push_back(std::make_unique<T>(*v[Below(v.size())]));
    }
  }

  fb::ExecutionPlanT* Plan() { return Pick(image_.program.execution_plan); }
  fb::TensorT* Tensor(fb::ExecutionPlanT& plan);
  std::vector<std::unique_ptr<fb::InstructionT>>* Instructions(fb::ExecutionPlanT& plan);

  const char* EditTensor(fb::ExecutionPlanT& plan);
  const char* EditValue(fb::ExecutionPlanT& plan);
  const char* EditPlan(fb::ExecutionPlanT& plan);
  const char* EditInstruction(fb::ExecutionPlanT& plan);
  const char* EditProgram();

  PteImage& image_;
  MutationRng& rng_;
};

fb::TensorT* Editor::Tensor(fb::ExecutionPlanT& plan) {
  if (plan.values.empty()) return nullptr;
  const size_t start = Below(plan.values.size());
  for (size_t k = 0; k < plan.values.size(); ++k) {
    auto& v = plan.values[(start + k) % plan.values.size()];
    if (v && v->val.type == fb::KernelTypes::Tensor) return v->val.AsTensor();
  }
  return nullptr;
}

std::vector<std::unique_ptr<fb::InstructionT>>* Editor::Instructions(fb::ExecutionPlanT& plan) {
  fb::ChainT* chain = Pick(plan.chains);
  return chain == nullptr ? nullptr : &chain->instructions;
}

const char* Editor::EditTensor(fb::ExecutionPlanT& plan) {
  fb::TensorT* t = Tensor(plan);
  if (t == nullptr) return EditValue(plan);
  switch (Below(10)) {
    case 0:
      t->scalar_type = static_cast<fb::ScalarType>(kDtypes[Below(sizeof(kDtypes))]);
      return "tensor.scalar_type";
    case 1:
      if (t->sizes.empty()) t->sizes.push_back(1);
      t->sizes[Below(t->sizes.size())] = static_cast<int32_t>(Interesting());
      return "tensor.sizes";
    case 2:  // Change the rank, keeping the dim order consistent or not.
      if (Coin() || t->sizes.empty()) {
        t->sizes.push_back(static_cast<int32_t>(Below(4)));
        if (Coin()) t->dim_order.push_back(static_cast<uint8_t>(t->dim_order.size()));
      } else {
        t->sizes.pop_back();
        if (Coin() && !t->dim_order.empty()) t->dim_order.erase(t->dim_order.begin());
      }
      return "tensor.rank";
    case 3:
      if (t->dim_order.empty()) t->dim_order.push_back(0);
      if (Coin()) {
        std::swap(t->dim_order[Below(t->dim_order.size())],
                  t->dim_order[Below(t->dim_order.size())]);
      } else {
        t->dim_order[Below(t->dim_order.size())] = static_cast<uint8_t>(Interesting());
      }
      return "tensor.dim_order";
    case 4:
      if (t->allocation_info == nullptr || Below(4) == 0) {
        t->allocation_info = Coin() ? std::make_unique<fb::AllocationDetailsT>() : nullptr;
        if (t->allocation_info) t->allocation_info->memory_id = static_cast<uint32_t>(Below(3));
      } else if (Coin()) {
        t->allocation_info->memory_id = static_cast<uint32_t>(Interesting());
      } else {
        const uint64_t offset = static_cast<uint64_t>(Interesting());
        t->allocation_info->memory_offset_low = static_cast<uint32_t>(offset);
        t->allocation_info->memory_offset_high = Coin() ? 0 : static_cast<uint32_t>(offset >> 32);
      }
      return "tensor.allocation_info";
    case 5:
      t->data_buffer_idx = static_cast<uint32_t>(Coin() ? Below(4) : Interesting());
      return "tensor.data_buffer_idx";
    case 6:
      t->shape_dynamism = static_cast<fb::TensorShapeDynamism>(Below(4));
      return "tensor.shape_dynamism";
    case 7:
      t->storage_offset = static_cast<int32_t>(Interesting());
      return "tensor.storage_offset";
    case 8:
      if (t->extra_tensor_info == nullptr)
        t->extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
      t->extra_tensor_info->location = static_cast<fb::TensorDataLocation>(Below(3));
      t->extra_tensor_info->mutable_data_segments_idx = static_cast<uint64_t>(Interesting());
      if (Coin()) t->extra_tensor_info->fully_qualified_name = "weight";
      return "tensor.extra_tensor_info";
    default:
      t->layout = static_cast<int8_t>(Interesting());
      t->requires_grad = Coin();
      return "tensor.layout";
  }
}

const char* Editor::EditValue(fb::ExecutionPlanT& plan) {
  if (plan.values.empty() || Below(8) == 0) {
    auto v = std::make_unique<fb::EValueT>();
    if (!plan.values.empty()) *v = *plan.values[Below(plan.values.size())];
    plan.values.push_back(std::move(v));
    return "value.append";
  }
  auto& value = plan.values[Below(plan.values.size())];
  if (value == nullptr) value = std::make_unique<fb::EValueT>();
  fb::KernelTypesUnion& u = value->val;
  const size_t n = plan.values.size();
  if (Below(3) == 0) {  // Replace with a value of another kind.
    switch (Below(11)) {
      case 0:
        u.Set(fb::NullT());
        break;
      case 1: {
        fb::IntT x;
        x.int_val = Interesting();
        u.Set(std::move(x));
        break;
      }
      case 2: {
        fb::BoolT x;
        x.bool_val = Coin();
        u.Set(std::move(x));
        break;
      }
      case 3: {
        fb::DoubleT x;
        x.double_val = std::numeric_limits<double>::quiet_NaN();
        u.Set(std::move(x));
        break;
      }
      case 4: {
        fb::StringT x;
        x.string_val = Coin() ? "mean" : "";
        u.Set(std::move(x));
        break;
      }
      case 5: {
        fb::IntListT x;
        x.items = {Index(n), Index(n)};
        u.Set(std::move(x));
        break;
      }
      case 6: {
        fb::DoubleListT x;
        x.items = {1.0, -1.0};
        u.Set(std::move(x));
        break;
      }
      case 7: {
        fb::BoolListT x;
        x.items = {true, false};
        u.Set(std::move(x));
        break;
      }
      case 8: {
        fb::TensorListT x;
        x.items = {Index(n)};
        u.Set(std::move(x));
        break;
      }
      case 9: {
        fb::OptionalTensorListT x;
        x.items = {-1, Index(n)};
        u.Set(std::move(x));
        break;
      }
      default: {
        fb::TensorT* t = Tensor(plan);
        if (t != nullptr) {
          fb::TensorT copy(*t);
          u.Set(std::move(copy));
        } else
          u.Reset();
      }
    }
    return "value.kind";
  }
  switch (u.type) {
    case fb::KernelTypes::Int:
      u.AsInt()->int_val = Interesting();
      return "int.value";
    case fb::KernelTypes::Double: {
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(), -1e308, 1e10, -0.0};
      u.AsDouble()->double_val = specials[Below(5)];
      return "double.value";
    }
    case fb::KernelTypes::IntList:
      EditVector(u.AsIntList()->items, static_cast<int64_t>(Index(n)));
      return "int_list.items";
    case fb::KernelTypes::TensorList:
      EditVector(u.AsTensorList()->items, Index(n));
      return "tensor_list.items";
    case fb::KernelTypes::OptionalTensorList:
      EditVector(u.AsOptionalTensorList()->items, Coin() ? -1 : Index(n));
      return "optional_tensor_list.items";
    case fb::KernelTypes::BoolList:
      EditVector(u.AsBoolList()->items, Coin());
      return "bool_list.items";
    case fb::KernelTypes::DoubleList:
      EditVector(u.AsDoubleList()->items, 0.0);
      return "double_list.items";
    case fb::KernelTypes::Tensor:
      return EditTensor(plan);
    default:
      u.Reset();
      return "value.clear";
  }
}

const char* Editor::EditInstruction(fb::ExecutionPlanT& plan) {
  auto* instructions = Instructions(plan);
  if (instructions == nullptr) {
    plan.chains.push_back(std::make_unique<fb::ChainT>());
    return "chain.append";
  }
  const size_t n = plan.values.size();
  if (instructions->empty() || Below(6) == 0) {
    DuplicateOrDrop(*instructions);
    if (!instructions->empty() && Coin()) {
      std::swap((*instructions)[Below(instructions->size())],
                (*instructions)[Below(instructions->size())]);
    }
    return "instructions.shape";
  }
  fb::InstructionArgumentsUnion& args = (*instructions)[Below(instructions->size())]->instr_args;
  if (Below(4) == 0) {  // Replace with another kind of instruction.
    switch (Below(5)) {
      case 0: {
        fb::KernelCallT k;
        k.op_index = Index(plan.operators.size());
        k.args = {Index(n), Index(n)};
        args.Set(std::move(k));
        break;
      }
      case 1: {
        fb::DelegateCallT d;
        d.delegate_index = Index(plan.delegates.size());
        d.args = {Index(n)};
        args.Set(std::move(d));
        break;
      }
      case 2: {
        fb::MoveCallT m;
        m.move_from = Index(n);
        m.move_to = Index(n);
        args.Set(std::move(m));
        break;
      }
      case 3: {
        fb::JumpFalseCallT j;
        j.cond_value_index = Index(n);
        j.destination_instruction = Index(instructions->size());
        args.Set(std::move(j));
        break;
      }
      default: {
        fb::FreeCallT f;
        f.value_index = Index(n);
        args.Set(std::move(f));
        break;
      }
    }
    return "instruction.kind";
  }
  switch (args.type) {
    case fb::InstructionArguments::KernelCall:
      if (Coin()) {
        args.AsKernelCall()->op_index = Index(plan.operators.size());
        return "kernel_call.op_index";
      }
      EditVector(args.AsKernelCall()->args, Index(n));
      return "kernel_call.args";
    case fb::InstructionArguments::DelegateCall:
      EditVector(args.AsDelegateCall()->args, Index(n));
      return "delegate_call.args";
    case fb::InstructionArguments::MoveCall:
      args.AsMoveCall()->move_to = Index(n);
      return "move.to";
    case fb::InstructionArguments::JumpFalseCall:
      args.AsJumpFalseCall()->destination_instruction = Index(instructions->size());
      return "jump.destination";
    case fb::InstructionArguments::FreeCall:
      args.AsFreeCall()->value_index = Index(n);
      return "free.value";
    default:
      args.Reset();
      return "instruction.clear";
  }
}

const char* Editor::EditPlan(fb::ExecutionPlanT& plan) {
  const size_t n = plan.values.size();
  switch (Below(7)) {
    case 0:
      EditVector(plan.inputs, Index(n));
      return "plan.inputs";
    case 1:
      EditVector(plan.outputs, Index(n));
      return "plan.outputs";
    case 2:
      EditVector(plan.non_const_buffer_sizes, Interesting());
      return "plan.non_const_buffer_sizes";
    case 3: {  // Point an operator at a registered kernel, or at anything.
      fb::OperatorT* op = Pick(plan.operators);
      if (op == nullptr || Below(8) == 0) {
        plan.operators.push_back(std::make_unique<fb::OperatorT>());
        op = plan.operators.back().get();
      }
      const int registered = NumRegisteredKernels();
      if (registered > 0 && Coin()) {
        const std::string full = RegisteredKernel(static_cast<int>(Below(registered))).name;
        const size_t dot = full.rfind('.');
        op->name = full.substr(0, dot);
        op->overload = dot == std::string::npos ? "" : full.substr(dot + 1);
      } else {
        op->name = kOpNames[Below(sizeof(kOpNames) / sizeof(kOpNames[0]))];
        op->overload = kOverloads[Below(sizeof(kOverloads) / sizeof(kOverloads[0]))];
        if (Below(8) == 0) op->name.assign(200, 'a');
      }
      return "operator.name";
    }
    case 4: {
      auto d = std::make_unique<fb::BackendDelegateT>();
      d->id = kBackendIds[Below(sizeof(kBackendIds) / sizeof(kBackendIds[0]))];
      d->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
      d->processed->location = static_cast<fb::DataLocation>(Below(3));
      d->processed->index = static_cast<uint32_t>(Coin() ? 0 : Interesting());
      if (Coin()) d->compile_specs.push_back(std::make_unique<fb::CompileSpecT>());
      plan.delegates.push_back(std::move(d));
      return "plan.delegates";
    }
    case 5:
      DuplicateOrDrop(plan.chains);
      return "plan.chains";
    default:
      plan.name = Coin() ? "" : "forward";
      return "plan.name";
  }
}

const char* Editor::EditProgram() {
  fb::ProgramT& p = image_.program;
  switch (Below(8)) {
    case 0:
      if (p.constant_segment == nullptr)
        p.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
      if (Coin())
        EditVector(p.constant_segment->offsets, static_cast<uint64_t>(Interesting()));
      else
        p.constant_segment->segment_index = static_cast<uint32_t>(Index(p.segments.size()));
      return "constant_segment";
    case 1: {
      fb::DataSegmentT* s = Pick(p.segments);
      if (s == nullptr || Below(4) == 0) {
        p.segments.push_back(std::make_unique<fb::DataSegmentT>());
        s = p.segments.back().get();
      }
      (Coin() ? s->offset : s->size) =
          static_cast<uint64_t>(Coin() ? Below(image_.segment_data.size() + 1) : Interesting());
      return "segments";
    }
    case 2: {
      auto m = std::make_unique<fb::SubsegmentOffsetsT>();
      m->segment_index = static_cast<uint32_t>(Index(p.segments.size()));
      m->offsets = {0, static_cast<uint64_t>(Coin() ? 0 : Interesting())};
      if (p.mutable_data_segments.empty() || Coin())
        p.mutable_data_segments.push_back(std::move(m));
      else
        p.mutable_data_segments[0] = std::move(m);
      return "mutable_data_segments";
    }
    case 3: {
      auto d = std::make_unique<fb::NamedDataT>();
      d->key = Coin() ? "weights" : "";
      d->segment_index = static_cast<uint32_t>(Index(p.segments.size()));
      p.named_data.push_back(std::move(d));
      return "named_data";
    }
    case 4: {
      auto b = std::make_unique<fb::BufferT>();
      if (Coin()) b->storage.assign(Below(64), 0x3f);
      if (p.constant_buffer.empty() || Coin())
        p.constant_buffer.push_back(std::move(b));
      else
        p.constant_buffer[Below(p.constant_buffer.size())] = std::move(b);
      return "constant_buffer";
    }
    case 5: {
      auto d = std::make_unique<fb::BackendDelegateInlineDataT>();
      if (Coin()) d->data.assign(Below(64), 0);
      p.backend_delegate_data.push_back(std::move(d));
      return "backend_delegate_data";
    }
    case 6:
      DuplicateOrDrop(p.execution_plan);
      return "execution_plan";
    default:
      if (Coin())
        image_.segment_data.resize(Below(image_.segment_data.size() + 1));
      else
        image_.extended_header = !image_.extended_header;
      return "layout";
  }
}

const char* Editor::Apply() {
  fb::ExecutionPlanT* plan = Plan();
  if (plan == nullptr || Below(8) == 0) return EditProgram();
  switch (Below(10)) {
    case 0:
    case 1:
    case 2:
      return EditTensor(*plan);
    case 3:
    case 4:
      return EditValue(*plan);
    case 5:
    case 6:
    case 7:
      return EditInstruction(*plan);
    default:
      return EditPlan(*plan);
  }
}

}  // namespace

const char* MutateStructured(std::vector<uint8_t>* file, MutationRng& rng, int num_edits) {
  PteImage image;
  if (!UnpackPte(file->data(), file->size(), &image)) return nullptr;
  const char* last = "none";
  Editor editor(image, rng);
  for (int i = 0; i < num_edits; ++i) last = editor.Apply();
  *file = PackPte(image);
  return last;
}

const char* MutateRaw(std::vector<uint8_t>* file, MutationRng& rng) {
  auto below = [&rng](uint64_t n) { return n == 0 ? 0 : rng() % n; };
  std::vector<uint8_t>& f = *file;
  if (f.empty()) {
    f.push_back(static_cast<uint8_t>(rng()));
    return "insert";
  }
  switch (below(7)) {
    case 0: {
      const int flips = 1 + static_cast<int>(below(8));
      for (int i = 0; i < flips; ++i) f[below(f.size())] ^= static_cast<uint8_t>(1u << below(8));
      return "bit_flip";
    }
    case 1:
      f.resize(below(f.size()));
      return "truncate";
    case 2: {
      const size_t at = below(f.size() + 1), n = 1 + below(16);
      std::vector<uint8_t> bytes(n);
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
      f.insert(f.begin() + at, bytes.begin(), bytes.end());
      return "insert";
    }
    case 3: {
      const size_t at = below(f.size()), n = 1 + below(16);
      f.erase(f.begin() + at, f.begin() + std::min(f.size(), at + n));
      return "delete";
    }
    case 4: {  // An interesting 32- or 64-bit integer at an aligned offset.
      const size_t width = below(2) ? 4 : 8;
      if (f.size() < width) return "bit_flip";
      const size_t at = below(f.size() / width) * width;
      const int64_t v = kInteresting[below(sizeof(kInteresting) / sizeof(kInteresting[0]))];
      memcpy(&f[at], &v, width);
      return "interesting_int";
    }
    case 5:
      f[below(f.size())] = static_cast<uint8_t>(rng());
      return "byte_set";
    default: {  // Copy a range over another one (duplicated tables, offsets).
      const size_t from = below(f.size()), to = below(f.size());
      const size_t n = std::min<size_t>(1 + below(64), std::min(f.size() - from, f.size() - to));
      memmove(&f[to], &f[from], n);
      return "copy_range";
    }
  }
}

}  // namespace fuzz
}  // namespace edgefleet
