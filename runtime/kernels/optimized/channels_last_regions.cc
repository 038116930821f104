#include "runtime/kernels/optimized/channels_last_regions.h"

#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>

#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/conv_small_input.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/grouped_nhwc.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

enum class Kind { kOther, kConv, kUnary, kBinary, kMean, kBatchNorm, kMaxPool, kCat };

struct OpShape {
  const char* name;
  size_t args;
  Kind kind;
};

constexpr OpShape kOps[] = {
    {"aten::convolution.out", 11, Kind::kConv},
    {"edgefleet::fused_convolution.out", 13, Kind::kConv},
    {"edgefleet::fused_convolution_hardswish.out", 13, Kind::kConv},
    {"edgefleet::fused_convolution_hardsigmoid.out", 13, Kind::kConv},
    {"edgefleet::fused_convolution_sigmoid.out", 13, Kind::kConv},
    {"edgefleet::fused_convolution_silu.out", 13, Kind::kConv},
    {"aten::relu.out", 3, Kind::kUnary},
    {"aten::hardtanh.out", 5, Kind::kUnary},
    {"aten::clamp.out", 5, Kind::kUnary},
    {"aten::hardswish.out", 3, Kind::kUnary},
    {"aten::hardsigmoid.out", 3, Kind::kUnary},
    {"aten::sigmoid.out", 3, Kind::kUnary},
    {"aten::tanh.out", 3, Kind::kUnary},
    {"aten::add.out", 5, Kind::kBinary},
    {"aten::sub.out", 5, Kind::kBinary},
    {"aten::mul.out", 4, Kind::kBinary},
    {"aten::div.out", 4, Kind::kBinary},
    {"edgefleet::fused_add_clamp.out", 7, Kind::kBinary},
    {"edgefleet::fused_sub_clamp.out", 7, Kind::kBinary},
    {"edgefleet::fused_mul_clamp.out", 6, Kind::kBinary},
    {"aten::add.Scalar_out", 5, Kind::kUnary},
    {"aten::sub.Scalar_out", 5, Kind::kUnary},
    {"aten::mul.Scalar_out", 4, Kind::kUnary},
    {"aten::div.Scalar_out", 4, Kind::kUnary},
    {"aten::mean.out", 6, Kind::kMean},
    {"aten::_native_batch_norm_legit_no_training.out", 11, Kind::kBatchNorm},
    {"aten::max_pool2d_with_indices.out", 9, Kind::kMaxPool},
    {"aten::cat.out", 4, Kind::kCat},
};

// The batch norm's out, then its save_mean, save_invstd (empty) and the
// list of the three.
constexpr size_t kBatchNormOut = 7, kBatchNormResults = 10;
// The max pool's out, then its indices (int64, never relabeled) and the
// list of both. Its input and out take either layout, independently.
constexpr size_t kMaxPoolIn = 0, kMaxPoolOut = 6, kMaxPoolResults = 8;

// Whether the channels-last grouped kernel takes a convolution with 4-D
// weight w [out_c, in_c / groups, kh, kw] (grouped_nhwc.h).
bool NarrowGroups(const Tensor& w, int64_t groups) {
  return NarrowGroupsApply(w.size(0), w.size(1), groups, int64_t{w.size(2)} * w.size(3));
}

// A grouped convolution other than a depthwise one that the channels-last
// kernel does not take (grouped_nhwc.h): its kernel computes NCHW,
// bridging each channels-last side (conv_layout_bridge.h).
bool Grouped(Span<EValue* const> args) {
  if (!args[8]->is_int() || args[8]->to_int() == 1) return false;
  if (!args[1]->is_tensor() || args[1]->to_tensor().dim() != 4) return true;
  const Tensor& w = args[1]->to_tensor();
  return w.size(1) != 1 && !NarrowGroups(w, args[8]->to_int());
}

Kind KindOf(const char* op, Span<EValue* const> args) {
  if (op == nullptr) return Kind::kOther;
  for (const OpShape& s : kOps) {
    if (args.size() == s.args && std::strcmp(op, s.name) == 0) {
      return s.kind;
    }
  }
  return Kind::kOther;
}

// True if argument `a` of an instruction of `kind` with `n` arguments may
// be a relabeled tensor: a read the kernel takes in either layout, or out.
bool LayoutFreeSlot(Kind kind, size_t a, size_t n) {
  switch (kind) {
    case Kind::kConv:
    case Kind::kUnary:
      return a == 0 || a + 2 >= n;
    case Kind::kBinary:
      return a <= 1 || a + 2 >= n;
    case Kind::kMean:
      return a == 0;
    case Kind::kBatchNorm:
      return a == 0 || a == kBatchNormOut || a == kBatchNormResults;
    case Kind::kMaxPool:
      return a == kMaxPoolIn || a == kMaxPoolOut || a == kMaxPoolResults;
    case Kind::kCat:  // the list of inputs, out
      return a == 0 || a + 2 >= n;
    case Kind::kOther:
      break;
  }
  return false;
}

// A float32 4-D default-order tensor with planes of more than one pixel:
// one whose layout matters.
bool Relabelable(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return false;
  const Tensor& t = v->to_tensor();
  return t.dtype() == ScalarType::kFloat && t.dim() == 4 && t.IsDefaultDimOrder() &&
         t.numel() > 0 && static_cast<int64_t>(t.size(2)) * t.size(3) > 1;
}

// A broadcast operand that reads alike against either layout of a 4-D
// out: [N, C, 1, 1] (a squeeze-and-excitation gate) or one element.
bool PerChannel(const Tensor& t) {
  return t.numel() == 1 || (t.dim() == 4 && t.size(2) == 1 && t.size(3) == 1);
}

bool SameSizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) return false;
  }
  return true;
}

// Union-find over the candidate tensors, node 0 standing for "must stay
// NCHW".
class Groups {
 public:
  size_t Node(const EValue* v) {
    auto [it, added] = index_.emplace(v, parent_.size());
    if (added) parent_.push_back(parent_.size());
    return it->second;
  }
  size_t Find(size_t n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }
  void Join(size_t a, size_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    parent_[a] = b;  // the smaller root: 0 wins
  }
  // Joins the tensors (or pins a candidate to NCHW when the other is not one).
  void Tie(const EValue* a, const EValue* b) {
    const bool ca = Relabelable(a), cb = Relabelable(b);
    if (ca && cb) {
      Join(Node(a), Node(b));
    } else if (ca || cb) {
      Pin(ca ? a : b);
    }
  }
  void Pin(const EValue* v) {
    if (Relabelable(v)) Join(Node(v), 0);
  }
  // The root of v's group, 0 when v is pinned or no candidate.
  size_t Root(const EValue* v) {
    const auto it = index_.find(v);
    return it == index_.end() ? 0 : Find(it->second);
  }
  const std::unordered_map<const EValue*, size_t>& nodes() const { return index_; }

 private:
  std::unordered_map<const EValue*, size_t> index_{{nullptr, 0}};
  std::vector<size_t> parent_{0};
};

// Pins what may not be relabeled and ties what must share a layout.
void Analyze(PlanEditor& plan, Groups* groups) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr) continue;
    const Span<EValue*> args = plan.args(pc);
    const Kind kind = KindOf(op, args);
    for (size_t a = 0; a < args.size(); ++a) {
      const bool list =
          args[a]->tag() == Tag::kListTensor || args[a]->tag() == Tag::kListOptionalTensor;
      if (!LayoutFreeSlot(kind, a, args.size()) ||
          (list && kind != Kind::kBatchNorm && kind != Kind::kMaxPool && kind != Kind::kCat)) {
        ForEachArgValue(Span<EValue* const>(&args[a], 1), [&](const EValue* v) { groups->Pin(v); });
      } else if (Relabelable(args[a])) {
        groups->Node(args[a]);
      }
    }
    // Every argument of another op is pinned above; a known op has its
    // argument count (KindOf), so the indices below exist.
    if (kind == Kind::kOther) continue;
    const EValue* out = args[kind == Kind::kBatchNorm ? kBatchNormOut
                             : kind == Kind::kMaxPool ? kMaxPoolOut
                                                      : args.size() - 1];
    if (kind == Kind::kMean) {
      groups->Pin(out);
    } else if (kind == Kind::kCat) {
      // Inputs and out in one layout (the kernel concatenates in memory
      // order); a list that is not all tensors stays as it is.
      if (args[0]->tag() != Tag::kListTensor) {
        groups->Pin(out);
        continue;
      }
      const BoxedTensorList& items = args[0]->to_tensor_list();
      for (size_t k = 0; k < items.size; ++k) groups->Tie(items.items[k], out);
    } else if (kind == Kind::kUnary || kind == Kind::kBatchNorm) {
      groups->Tie(args[0], out);
    } else if (kind == Kind::kBinary) {
      if (!out->is_tensor()) continue;
      for (size_t a = 0; a < 2; ++a) {
        if (!args[a]->is_tensor()) continue;
        const Tensor& t = args[a]->to_tensor();
        if (SameSizes(t, out->to_tensor())) {
          groups->Tie(args[a], out);
        } else if (!PerChannel(t)) {  // another broadcast: leave it all NCHW
          groups->Pin(args[a]);
          groups->Pin(out);
        }
      }
    }
    if (kind != Kind::kBatchNorm && kind != Kind::kMaxPool && args[args.size() - 2] != out) {
      groups->Pin(args[args.size() - 2]);
    }
  }
  for (const auto& [v, node] : groups->nodes()) {
    if (v == nullptr) continue;
    const int64_t w = plan.writer(v);
    const Kind writer =
        w < 0 ? Kind::kOther : KindOf(plan.op(w), plan.args(static_cast<size_t>(w)));
    if (plan.is_constant(v) || plan.is_method_io(v) || writer == Kind::kOther ||
        writer == Kind::kMean || plan.num_readers(v) != NumNamingReaders(plan, v)) {
      groups->Pin(v);
    }
  }
}

bool ChannelsLast(const EValue* v) {
  return v != nullptr && v->is_tensor() && IsChannelsLast(v->to_tensor());
}

// A float32 tensor of `dim` <= 4 dims over new method memory, or null.
EValue* NewTensor(PlanEditor& plan, int dim, const int32_t* sizes, const uint8_t* order,
                  float** data) {
  struct Owned {
    int32_t sizes[4];
    uint8_t dim_order[4];
    int32_t strides[4];
    alignas(Tensor) unsigned char storage[sizeof(Tensor)];
  };
  int64_t numel = 1;
  for (int d = 0; d < dim; ++d) numel *= sizes[d];
  void* meta = plan.Allocate(sizeof(Owned), alignof(Owned));
  void* bytes = plan.Allocate(sizeof(float) * numel, 64);
  if (meta == nullptr || bytes == nullptr) return nullptr;
  auto* o = new (meta) Owned{};
  for (int d = 0; d < dim; ++d) {
    o->sizes[d] = sizes[d];
    o->dim_order[d] = order[d];
  }
  Tensor* t = new (o->storage) Tensor(ScalarType::kFloat, dim, o->sizes, o->dim_order, o->strides,
                                      bytes, ShapeDynamism::kStatic);
  *data = static_cast<float*>(bytes);
  return plan.NewValue(EValue::FromTensor(t));
}

// The fused kernel for a convolution of `op`, or null.
const Kernel* FusedKernel(const char* op) {
  if (std::strcmp(op, "aten::convolution.out") == 0) return &kFusedConvolutionKernel;
  for (const Kernel* k : {&kFusedConvolutionKernel, &kFusedConvolutionHardswishKernel,
                          &kFusedConvolutionHardsigmoidKernel, &kFusedConvolutionSigmoidKernel,
                          &kFusedConvolutionSiluKernel}) {
    if (std::strcmp(op, k->name) == 0) return k;
  }
  return nullptr;
}

// The fused kernel `fused` at `pc` with the convolution's arguments, its
// weight replaced by `weight` when not null, and `extra` before out when
// not null. False when memory ran out.
bool ReplaceConvolution(PlanEditor& plan, size_t pc, const Kernel& fused, EValue* weight,
                        EValue* extra) {
  const Span<EValue*> args = plan.args(pc);
  EValue* none = args.size() == 11 ? plan.NewValue(EValue()) : nullptr;
  if (args.size() == 11 && none == nullptr) return false;
  EValue* call[14];
  size_t n = 0;
  for (int i = 0; i < 9; ++i) call[n++] = args[i];
  if (weight != nullptr) call[1] = weight;
  call[n++] = args.size() == 11 ? none : args[9];
  call[n++] = args.size() == 11 ? none : args[10];
  if (extra != nullptr) call[n++] = extra;
  call[n++] = args[args.size() - 2];
  call[n++] = args[args.size() - 1];
  return plan.Replace(pc, fused, Span<EValue* const>(call, n)) == Error::kOk;
}

// Gives the depthwise or narrow-group convolution at `pc` (a side of it
// relabeled; weight [oc, ic / groups, kh, kw]) its filter with the output
// channels innermost, [ic / groups][kh][kw][oc] (tap-major for a depthwise
// one), the order the channels-last depthwise and grouped kernels read in
// place (they copy any other on every call). False when memory ran out.
bool PrepareOutputInnermostFilter(PlanEditor& plan, size_t pc, const Kernel& fused) {
  const Span<EValue*> args = plan.args(pc);
  const Tensor& w = args[1]->to_tensor();
  const int64_t oc_n = w.size(0), ic_n = w.size(1);
  const int64_t taps = static_cast<int64_t>(w.size(2)) * w.size(3);
  const uint8_t order[4] = {1, 2, 3, 0};
  float* data = nullptr;
  EValue* filter = NewTensor(plan, 4, w.sizes().data(), order, &data);
  if (filter == nullptr) return false;
  const float* src = w.data_as<const float>();
  for (int64_t ic = 0; ic < ic_n; ++ic) {
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t offset =
          ic * w.stride(1) + t / w.size(3) * w.stride(2) + t % w.size(3) * w.stride(3);
      float* row = data + (ic * taps + t) * oc_n;
      for (int64_t oc = 0; oc < oc_n; ++oc) row[oc] = src[oc * w.stride(0) + offset];
    }
  }
  return ReplaceConvolution(plan, pc, fused, filter, nullptr);
}

// Gives the one-group convolution at `pc` (a side of it relabeled) its
// filter in a channels-last form: column panels for the GEMM, or for at
// most kSmallInputMaxChannels input channels (an RGB stem) a copy with the
// output channels innermost, as the direct small-input kernel reads it
// (conv_small_input.h). False when memory ran out.
bool PrepareChannelsLastFilter(PlanEditor& plan, size_t pc) {
  const Span<EValue*> args = plan.args(pc);
  const Kernel* fused = FusedKernel(plan.op(pc));
  const EValue* wv = args[1];
  // Other grouped convolutions run on NCHW copies (conv_layout_bridge.h).
  if (fused == nullptr || !wv->is_tensor() || !plan.is_constant(wv) || !args[8]->is_int() ||
      !args[6]->is_bool() || args[6]->to_bool()) {
    return true;
  }
  const Tensor& w = wv->to_tensor();
  if (w.dtype() != ScalarType::kFloat || w.dim() != 4 || w.numel() == 0 || w.data() == nullptr) {
    return true;
  }
  if (args[8]->to_int() != 1) {
    const bool depthwise = args[8]->to_int() == w.size(0) && w.size(1) == 1;
    return !(depthwise || NarrowGroups(w, args[8]->to_int())) ||
           PrepareOutputInnermostFilter(plan, pc, *fused);
  }
  ConvGeometry g{};
  g.out_c = w.size(0);
  g.in_c = w.size(1);
  g.k_h = w.size(2);
  g.k_w = w.size(3);
  g.groups = 1;
  const int64_t depth = g.in_c * g.taps();
  const int64_t strides[4] = {w.stride(0), w.stride(1), w.stride(2), w.stride(3)};
  const float* src = w.data_as<const float>();
  const bool small_input = g.in_c <= kSmallInputMaxChannels;
  EValue* filter = nullptr;
  float* data = nullptr;
  if (small_input) {
    // [oc, ic, kh, kw] stored as [kh][kw][ic][oc].
    const uint8_t order[4] = {2, 3, 1, 0};
    filter = NewTensor(plan, 4, w.sizes().data(), order, &data);
    if (filter == nullptr) return false;
    for (int64_t t = 0; t < g.taps(); ++t) {
      const int64_t offset = t / g.k_w * strides[2] + t % g.k_w * strides[3];
      for (int64_t ic = 0; ic < g.in_c; ++ic) {
        for (int64_t oc = 0; oc < g.out_c; ++oc) {
          data[(t * g.in_c + ic) * g.out_c + oc] = src[oc * strides[0] + ic * strides[1] + offset];
        }
      }
    }
  } else {
    const int width = PanelWidth();
    const int64_t rows = PanelFloats(g.out_c, depth) / width;
    if (rows > INT32_MAX) return true;
    const int32_t sizes[2] = {static_cast<int32_t>(rows), width};
    const uint8_t order[2] = {0, 1};
    filter = NewTensor(plan, 2, sizes, order, &data);
    if (filter == nullptr) return false;
    const TapList taps = TapList::All(g);
    PackPanels(ConvWeight(g, taps, src, strides, true), g.out_c, depth, data);
  }
  return small_input ? ReplaceConvolution(plan, pc, *fused, filter, nullptr)
                     : ReplaceConvolution(plan, pc, *fused, nullptr, filter);
}

// The groups worth relabeling (see the header): those that at least as
// many convolutions and max pools read or write with both sides
// channels-last as with the other side NCHW (a bridge: one transpose). Dropping a group changes its
// neighbours' counts, so this repeats until nothing changes. Returns the kept roots.
std::vector<bool> GroupsWorthRelabeling(const PlanEditor& plan, Groups& groups) {
  std::vector<bool> keep(groups.nodes().size() + 1, false);
  for (const auto& [v, node] : groups.nodes()) keep[groups.Find(node)] = v != nullptr;
  keep[0] = false;
  for (bool changed = true; changed;) {
    std::vector<int64_t> score(keep.size(), 0);  // native minus bridged
    for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
      const Span<EValue*> args = plan.args(pc);
      const Kind kind = KindOf(plan.op(pc), args);
      if (kind != Kind::kConv && kind != Kind::kMaxPool) continue;
      const size_t in = groups.Root(args[0]);
      const size_t out = groups.Root(args[kind == Kind::kMaxPool ? kMaxPoolOut : args.size() - 1]);
      const bool both = keep[in] && keep[out] && (kind == Kind::kMaxPool || !Grouped(args));
      score[in] += both ? 1 : -1;
      score[out] += both ? 1 : -1;
    }
    changed = false;
    for (size_t r = 1; r < keep.size(); ++r) {
      if (keep[r] && score[r] < 0) {
        keep[r] = false;
        changed = true;
      }
    }
  }
  return keep;
}

}  // namespace

void RelabelChannelsLastRegions(PlanEditor& plan, bool only_worthwhile) {
  Groups groups;
  Analyze(plan, &groups);
  std::vector<bool> keep = GroupsWorthRelabeling(plan, groups);
  if (!only_worthwhile) {
    for (const auto& [v, node] : groups.nodes()) keep[groups.Find(node)] = v != nullptr;
    keep[0] = false;
  }
  int32_t sizes[4] = {1, 1, 1, 1};
  uint8_t order[4] = {0, 2, 3, 1};
  int32_t strides[4];
  const Tensor channels_last(ScalarType::kFloat, 4, sizes, order, strides, nullptr,
                             ShapeDynamism::kStatic);
  for (const auto& [v, node] : groups.nodes()) {
    if (v != nullptr && keep[groups.Find(node)]) {
      v->to_tensor().CopyDimOrderFrom(channels_last);
    }
  }
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (KindOf(plan.op(pc), plan.args(pc)) != Kind::kConv) continue;
    const Span<EValue*> args = plan.args(pc);
    if ((ChannelsLast(args[0]) || ChannelsLast(args[args.size() - 1])) &&
        !PrepareChannelsLastFilter(plan, pc)) {
      return;
    }
  }
}

void RunChannelsLastRegions(PlanEditor& plan) { RelabelChannelsLastRegions(plan, true); }

}  // namespace optimized
}  // namespace edgefleet
