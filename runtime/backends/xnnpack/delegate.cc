#include "runtime/backends/xnnpack/delegate.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstring>

#include "runtime/backends/xnnpack/activation_folding.h"
#include "runtime/backends/xnnpack/arena_plan.h"
#include "runtime/backends/xnnpack/clamp_folding.h"
#include "runtime/backends/xnnpack/dense_nodes.h"
#include "runtime/backends/xnnpack/dynamic_conv_nodes.h"
#include "runtime/backends/xnnpack/graph_validation.h"
#include "runtime/backends/xnnpack/int8_dense_nodes.h"
#include "runtime/backends/xnnpack/node_kernels.h"
#include "runtime/backends/xnnpack/xnn_define.h"
#include "runtime/backends/xnnpack/xnn_memory.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/tensor.h"

namespace edgefleet {
namespace xnnpack {

struct XnnpackDelegate::Step {
  Engine engine = Engine::kOwnKernel;
  size_t first = 0, last = 0;  // node range [first, last]
  xnn_runtime_t runtime = nullptr;
  std::vector<uint32_t> external_values;  // graph value id per XNNPACK external id
  std::vector<xnn_external_value> externals;
  bool set_up = false;
};

namespace {

// Bytes past a buffer XNNPACK's kernels may read (XNN_EXTRA_BYTES), rounded up.
constexpr size_t kTailPadding = 64;
constexpr size_t kArenaAlignment = 64;
// An arena of at most this fraction of the method's temp memory lives there
// (the rest is left to the kernels' scratch).
constexpr size_t kTempArenaShare = 4;

bool DtypeMatches(DataType type, ScalarType dtype) {
  switch (type) {
    case DataType::kFp32:
      return dtype == ScalarType::kFloat;
    case DataType::kFp16:
      return dtype == ScalarType::kHalf;
    case DataType::kQint8:
      return dtype == ScalarType::kChar || dtype == ScalarType::kQInt8;
    case DataType::kQuint8:
      return dtype == ScalarType::kByte || dtype == ScalarType::kQUInt8;
    case DataType::kQint32:
    case DataType::kInt32:
      return dtype == ScalarType::kInt || dtype == ScalarType::kQInt32;
    default:
      return false;
  }
}

}  // namespace

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kXnnpack:
      return "xnnpack";
    case Engine::kOwnKernel:
      return "own";
    case Engine::kOwnDense:
      return "own-optimized";
    case Engine::kOwnInt8:
      return "own-int8";
  }
  return "?";
}

Result<std::unique_ptr<XnnpackDelegate>> XnnpackDelegate::Create(std::unique_ptr<Graph> graph,
                                                                 void* threadpool, int num_threads,
                                                                 bool dense_on_own_kernels,
                                                                 size_t temp_bytes) {
  std::unique_ptr<XnnpackDelegate> d(new XnnpackDelegate());
  d->graph_ = std::move(graph);
  d->threadpool_ = threadpool;
  d->num_threads_ = std::max(num_threads, 1);
  d->dense_on_own_kernels_ = dense_on_own_kernels;
  d->temp_bytes_ = temp_bytes;
  EF_RETURN_IF_ERROR(d->Plan());
  EF_RETURN_IF_ERROR(d->Build());
  return d;
}

XnnpackDelegate::~XnnpackDelegate() {
  for (Step& s : steps_) {
    if (s.runtime != nullptr) xnn_delete_runtime(s.runtime);
  }
}

size_t XnnpackDelegate::num_xnnpack_runtimes() const {
  size_t n = 0;
  for (const Step& s : steps_) n += s.engine == Engine::kXnnpack;
  return n;
}

Error XnnpackDelegate::Plan() {
  const Graph& g = *graph_;
  // 1. Engine per node: our kernels for the nodes the system XNNPACK
  // computes differently from the real runtime (OwnKernelPreferred) and for
  // those our kernels run faster (OwnKernelPreferred, DenseKernelPreferred,
  // when the method may use our optimized kernels); else XNNPACK when it
  // accepts the node, else our kernels.
  XnnpackMemoryScope scope;  // initializes XNNPACK for the probes
  EF_RETURN_IF_ERROR(scope.status());
  // The real runtime quantizes a pointwise qd8 convolution's input per pixel.
  QuantizePointwiseInputsPerPixel(*graph_);
  // Clamps go into their producers first, as the real runtime fuses them.
  FoldInt8Clamps(*graph_, [this](const Graph& graph, const Node& node) {
    return (dense_on_own_kernels_ && Int8DenseKernelPreferred(graph, node)) ||
           XnnpackAccepts(graph, node);
  });
  // So do SiLUs (Sigmoid then Multiply) after nodes our dense kernels run.
  if (dense_on_own_kernels_) FoldFloatActivations(*graph_, DenseKernelPreferred);
  engines_.resize(g.nodes.size());
  packed_filters_.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (OwnKernelPreferred(g, n, dense_on_own_kernels_)) {
      engines_[i] = Engine::kOwnKernel;
    } else if (dense_on_own_kernels_ && Int8DenseKernelPreferred(g, n)) {
      engines_[i] = Engine::kOwnInt8;
    } else if (dense_on_own_kernels_ && DenseKernelPreferred(g, n)) {
      engines_[i] = Engine::kOwnDense;
    } else if (XnnpackAccepts(g, n)) {
      engines_[i] = Engine::kXnnpack;
    } else if (dense_on_own_kernels_ && DenseKernelSupports(g, n)) {
      engines_[i] = Engine::kOwnDense;
    } else if (OwnKernelSupports(g, n)) {
      engines_[i] = Engine::kOwnKernel;
    } else {
      const Value& in = g.values[n.inputs[0]];
      const Value& out = g.values[n.outputs[0]];
      EF_FAIL(Error::kNotSupported, "xnnpack: node %s (%s -> %s) is not supported",
              NodeTypeName(n.type), DataTypeName(in.type), DataTypeName(out.type));
    }
  }
  // A static reshape between nodes that do not run on XNNPACK would be an
  // XNNPACK runtime of its own (a copy, plus the runtime's call): our copy
  // instead (ShuffleNet's 32 channel-shuffle reshapes, next to transposes).
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const bool alone = (i == 0 || engines_[i - 1] != Engine::kXnnpack) &&
                       (i + 1 == g.nodes.size() || engines_[i + 1] != Engine::kXnnpack);
    if (g.nodes[i].type == NodeType::kStaticReshape && engines_[i] == Engine::kXnnpack && alone &&
        OwnKernelSupports(g, g.nodes[i])) {
      engines_[i] = Engine::kOwnKernel;
    }
  }
  // The filters our dense kernels read transposed (and our int8 kernels
  // with their requantization), packed into one block (page_block.h: its
  // pages fault in 2 MiB units, not 4 KiB).
  std::vector<size_t> filter_offset(g.nodes.size(), 0), packed_size(g.nodes.size(), 0);
  size_t filter_bytes = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (engines_[i] == Engine::kOwnDense) {
      packed_size[i] = PackedFilterFloats(g, g.nodes[i]) * sizeof(float);
    } else if (engines_[i] == Engine::kOwnInt8) {
      packed_size[i] = PackedInt8FilterBytes(g, g.nodes[i]);
    }
    filter_offset[i] = filter_bytes;
    filter_bytes += (packed_size[i] + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  }
  EF_CHECK_OR_RETURN(
      // The packers write every byte of each filter they pack.
      packed_filter_block_.Allocate(filter_bytes, PageBlock::Contents::kUnspecified),
      Error::kMemoryAllocationFailed, "xnnpack: no memory for %zu bytes of packed filters",
      filter_bytes);
  packed_bytes_ = packed_filter_block_.resident_bytes();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (packed_size[i] == 0) continue;
    packed_filters_[i] = packed_filter_block_.data() + filter_offset[i];
    if (engines_[i] == Engine::kOwnInt8) {
      PackInt8DenseFilter(g, g.nodes[i], packed_filters_[i]);
    } else {
      PackDenseFilter(g, g.nodes[i], static_cast<float*>(packed_filters_[i]));
    }
  }
  // 2. Steps: runs of XNNPACK nodes, single own-kernel nodes.
  std::vector<int> step_of(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (steps_.empty() || engines_[i] != Engine::kXnnpack ||
        steps_.back().engine != Engine::kXnnpack) {
      steps_.emplace_back();
      steps_.back().engine = engines_[i];
      steps_.back().first = i;
    }
    steps_.back().last = i;
    step_of[i] = static_cast<int>(steps_.size()) - 1;
  }
  // 3. Which values cross steps (or are method inputs/outputs, or written by
  // our kernels): those need memory outside XNNPACK.
  constexpr int kNoStep = -1;
  std::vector<int> producer(g.values.size(), kNoStep);
  std::vector<bool> boundary(g.values.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (uint32_t id : g.nodes[i].outputs) {
      producer[id] = step_of[i];
      if (engines_[i] != Engine::kXnnpack) boundary[id] = true;
    }
  }
  std::vector<bool> read(g.values.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (uint32_t id : g.nodes[i].inputs) {
      if (id == kInvalidId || g.values[id].is_constant()) continue;
      read[id] = true;
      if (producer[id] != step_of[i] || engines_[i] != Engine::kXnnpack) boundary[id] = true;
    }
  }
  // A value nothing reads gets no memory inside this XNNPACK (its node then
  // asserts at setup): give it a buffer of ours.
  for (size_t id = 0; id < g.values.size(); ++id) {
    if (producer[id] != kNoStep && !read[id]) boundary[id] = true;
  }
  boundary_ = std::move(boundary);
  producer_ = std::move(producer);
  step_of_ = std::move(step_of);
  for (const Value& v : g.values) dims_.push_back(v.dims);
  return Error::kOk;
}

Error XnnpackDelegate::Build() {
  const Graph& g = *graph_;
  const std::vector<bool>& boundary = boundary_;
  const std::vector<int>& producer = producer_;
  const std::vector<int>& step_of = step_of_;
  for (Step& s : steps_) {
    if (s.runtime != nullptr) xnn_delete_runtime(s.runtime);
    s.runtime = nullptr;
    s.set_up = false;
  }
  arena_ = PageBlock();
  arena_in_temp_ = false;
  temp_base_ = nullptr;
  build_bytes_ = 0;
  XnnpackMemoryScope scope;  // serializes compilation, initializes XNNPACK
  EF_RETURN_IF_ERROR(scope.status());
  data_.resize(g.values.size(), nullptr);  // method inputs/outputs keep their binding
  // Boundary values live in one arena, planned over their step lifetimes.
  std::vector<int> last_read(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (uint32_t id : g.nodes[i].inputs) {
      if (id != kInvalidId) last_read[id] = std::max(last_read[id], step_of[i]);
    }
  }
  std::vector<uint32_t> planned;
  std::vector<Lifetime> lifetimes;
  for (const Value& v : g.values) {
    if (v.id == kInvalidId) continue;
    if (v.is_constant()) {
      data_[v.id] = const_cast<void*>(v.data);
    } else if (boundary[v.id] && !v.is_external()) {
      const int first = std::max(producer[v.id], 0);
      planned.push_back(v.id);
      lifetimes.push_back(
          {OwnBufferBytes(v, dims_[v.id]) + kTailPadding, first, std::max(first, last_read[v.id])});
    }
  }
  const ArenaPlan plan = PlanArena(lifetimes, kArenaAlignment);
  // Not zero-filled: every value in it is written by its producer before a
  // step reads it, and XNNPACK's reads past a value's end (kTailPadding)
  // never reach its results. (Zeroing faulted in every page at load, a
  // third of a ViT's load with its 86 delegates.)
  arena_values_ = std::move(planned);
  arena_offsets_ = plan.offsets;
  arena_bytes_ = plan.size;
  if (plan.size > 0 && plan.size <= temp_bytes_ / kTempArenaShare) {
    arena_in_temp_ = true;  // bound at each Execute (BindArena)
  } else {
    EF_CHECK_OR_RETURN(arena_.Allocate(plan.size, PageBlock::Contents::kUnspecified),
                       Error::kMemoryAllocationFailed,
                       "xnnpack: no memory for a %zu-byte arena of boundary values", plan.size);
    build_bytes_ += arena_.resident_bytes();
    for (size_t i = 0; i < arena_values_.size(); ++i) {
      data_[arena_values_[i]] = arena_.data() + arena_offsets_[i];
    }
  }
  // 4. One XNNPACK runtime per run of XNNPACK nodes.
  for (Step& step : steps_) {
    if (step.engine == Engine::kXnnpack) {
      // This XNNPACK gives an empty value no memory and then asserts on it.
      for (size_t i = step.first; i <= step.last; ++i) {
        const Node& n = g.nodes[i];
        for (const std::vector<uint32_t>* ids : {&n.inputs, &n.outputs}) {
          for (uint32_t id : *ids) {
            if (id == kInvalidId) continue;
            size_t numel = 1;
            for (size_t d : dims_[id]) numel *= d;
            EF_CHECK_OR_RETURN(numel > 0, Error::kNotSupported,
                               "xnnpack: node %s has an empty operand, which the system "
                               "XNNPACK cannot run",
                               NodeTypeName(n.type));
          }
        }
      }
      // Values defined here: externals are exactly the boundary values.
      std::vector<uint32_t> ids(g.values.size(), XNN_INVALID_VALUE_ID);
      std::vector<uint32_t> externals;
      for (size_t i = step.first; i <= step.last; ++i) {
        for (uint32_t id : g.nodes[i].inputs) {
          if (id != kInvalidId && boundary[id] && ids[id] == XNN_INVALID_VALUE_ID) {
            ids[id] = 0;  // mark
            externals.push_back(id);
          }
        }
        for (uint32_t id : g.nodes[i].outputs) {
          if ((boundary[id] || g.values[id].is_external()) && ids[id] == XNN_INVALID_VALUE_ID) {
            ids[id] = 0;
            externals.push_back(id);
          }
        }
      }
      std::fill(ids.begin(), ids.end(), XNN_INVALID_VALUE_ID);
      xnn_subgraph_t sg = nullptr;
      EF_CHECK_OR_RETURN(xnn_create_subgraph(static_cast<uint32_t>(externals.size()), 0, &sg) ==
                             xnn_status_success,
                         Error::kMemoryAllocationFailed, "xnnpack: cannot create a subgraph");
      bool ok = true;
      for (uint32_t e = 0; e < externals.size() && ok; ++e) {
        const uint32_t vid = externals[e];
        const bool produced_here = producer[vid] == step_of[step.first];
        ok = DefineValue(
            sg, g.values[vid], dims_[vid], e,
            produced_here ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT,
            &ids[vid]);
      }
      for (size_t i = step.first; i <= step.last && ok; ++i) {
        const Node& n = g.nodes[i];
        for (uint32_t id : n.inputs) {
          if (ok && id != kInvalidId && ids[id] == XNN_INVALID_VALUE_ID) {
            ok = DefineValue(sg, g.values[id], dims_[id], XNN_INVALID_VALUE_ID, 0, &ids[id]);
            // A constant XNNPACK packs (weights, biases) or keeps.
            if (g.values[id].is_constant()) build_bytes_ += g.values[id].nbytes();
          }
        }
        for (uint32_t id : n.outputs) {
          if (ok && ids[id] == XNN_INVALID_VALUE_ID) {
            ok = DefineValue(sg, g.values[id], dims_[id], XNN_INVALID_VALUE_ID, 0, &ids[id]);
            // An XNNPACK-internal value: its workspace.
            build_bytes_ += OwnBufferBytes(g.values[id], dims_[id]);
          }
        }
        if (ok && !DefineNode(sg, n, ids, dims_[n.outputs[0]])) {
          xnn_delete_subgraph(sg);
          EF_FAIL(Error::kInvalidProgram, "xnnpack: XNNPACK rejected node %zu (%s)", i,
                  NodeTypeName(n.type));
        }
      }
      // No XNN_FLAG_YIELD_WORKERS: between XNNPACK runtimes our kernels run
      // on the same pthreadpool, so workers still spinning pick their tasks
      // up at once (MobileNetV2 at 2 threads: p50 about 2x better than with
      // yielding workers on a loaded 2-core host).
      xnn_status status =
          ok ? xnn_create_runtime_v2(sg, static_cast<pthreadpool_t>(threadpool_), 0, &step.runtime)
             : xnn_status_invalid_parameter;
      xnn_delete_subgraph(sg);
      EF_CHECK_OR_RETURN(status == xnn_status_success, Error::kInvalidProgram,
                         "xnnpack: XNNPACK could not build nodes %zu..%zu (status %d)", step.first,
                         step.last, static_cast<int>(status));
      step.external_values = externals;
      step.externals.resize(externals.size());
      for (uint32_t e = 0; e < externals.size(); ++e) step.externals[e] = {e, nullptr};
    }
  }
  return Error::kOk;
}

Error XnnpackDelegate::Reshape() {
  const Graph& g = *graph_;
  for (const Node& n : g.nodes) {
    Dims out[2];
    EF_RETURN_IF_ERROR(InferOutputDims(g, n, dims_, out));
    for (size_t i = 0; i < n.outputs.size(); ++i) dims_[n.outputs[i]] = out[i];
  }
  return Build();
}

Error XnnpackDelegate::Bind(Span<EValue*> args) {
  const Graph& g = *graph_;
  EF_CHECK_OR_RETURN(args.size() >= g.num_externs, Error::kInvalidArgument,
                     "xnnpack: delegate call has %zu arguments, needs %u", args.size(),
                     g.num_externs);
  // No allocation here (every execute): an argument's dims are read into a
  // fixed array and only copied into dims_ when they changed.
  bool changed = false;
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<uint32_t>& ids = pass == 0 ? g.input_values : g.output_values;
    for (uint32_t vid : ids) {
      const Value& v = g.values[vid];
      EValue* arg = args[v.external_id];
      EF_CHECK_OR_RETURN(arg != nullptr && arg->is_tensor(), Error::kInvalidArgument,
                         "xnnpack: argument %u is not a tensor", v.external_id);
      Tensor& t = arg->to_tensor();
      EF_CHECK_OR_RETURN(DtypeMatches(v.type, t.dtype()), Error::kInvalidArgument,
                         "xnnpack: argument %u has dtype %d, the delegate expects %s",
                         v.external_id, static_cast<int>(t.dtype()), DataTypeName(v.type));
      // XNNPACK sees the tensor in memory order (dim order). A 0-d tensor is
      // serialized as [1].
      size_t dims[kMaxDims];
      size_t rank = static_cast<size_t>(t.dim());
      EF_CHECK_OR_RETURN(rank <= kMaxDims, Error::kInvalidArgument,
                         "xnnpack: argument %u has rank %zu, more than %zu", v.external_id, rank,
                         kMaxDims);
      for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<size_t>(t.size(t.dim_order()[i]));
      if (rank == 0 && v.dims.size() == 1 && v.dims[0] == 1) dims[rank++] = 1;
      const auto differs = [&](const Dims& have) {
        return rank != have.size() || !std::equal(dims, dims + rank, have.begin());
      };
      if (pass == 0) {
        EF_CHECK_OR_RETURN(rank == v.dims.size(), Error::kInvalidArgument,
                           "xnnpack: argument %u has rank %zu, expects %zu", v.external_id, rank,
                           v.dims.size());
        if (differs(dims_[vid])) {
          dims_[vid].assign(dims, dims + rank);
          changed = true;
        }
      } else {
        if (changed) {
          EF_RETURN_IF_ERROR(Reshape());
          changed = false;
        }
        const Dims& want = dims_[vid];
        if (differs(want)) {
          EF_CHECK_OR_RETURN(static_cast<size_t>(t.dim()) == want.size(), Error::kInvalidArgument,
                             "xnnpack: output argument %u has rank %d, expects %zu", v.external_id,
                             t.dim(), want.size());
          int32_t sizes[kMaxDims];
          for (size_t i = 0; i < want.size(); ++i) {
            sizes[t.dim_order()[i]] = static_cast<int32_t>(want[i]);
          }
          EF_RETURN_IF_ERROR(t.Resize({sizes, want.size()}));
        }
      }
      data_[vid] = t.mutable_data();
    }
    if (pass == 0 && changed && g.output_values.empty()) {
      EF_RETURN_IF_ERROR(Reshape());
    }
  }
  return Error::kOk;
}

Error XnnpackDelegate::RunWithThreads(Error (*body)(void* context), void* context) {
  PthreadpoolRunner runner(threadpool_);
  const optimized::ScopedParallelRunner scoped(threadpool_ != nullptr ? &runner : nullptr);
  return body(context);
}

Error XnnpackDelegate::BindArena(MemoryAllocator* temp) {
  if (!arena_in_temp_) return Error::kOk;
  EF_CHECK_OR_RETURN(temp != nullptr, Error::kMemoryAllocationFailed,
                     "xnnpack: no temp memory for the %zu-byte arena of boundary values",
                     arena_bytes_);
  auto* base = static_cast<uint8_t*>(temp->Allocate(arena_bytes_, kArenaAlignment));
  EF_CHECK_OR_RETURN(base != nullptr, Error::kMemoryAllocationFailed,
                     "xnnpack: no temp memory for the %zu-byte arena of boundary values",
                     arena_bytes_);
  if (base == temp_base_) return Error::kOk;  // as last time: the XNNPACK runtimes stay set up
  for (size_t i = 0; i < arena_values_.size(); ++i) {
    data_[arena_values_[i]] = base + arena_offsets_[i];
  }
  temp_base_ = base;
  return Error::kOk;
}

Error XnnpackDelegate::Execute(MemoryAllocator* temp, Span<EValue*> args, EventTracer* tracer) {
  EF_RETURN_IF_ERROR(Bind(args));
  EF_RETURN_IF_ERROR(BindArena(temp));
  const Graph& g = *graph_;
  // Our kernels run on the method's pthreadpool too: one set of threads.
  PthreadpoolRunner runner(threadpool_);
  const optimized::ScopedParallelRunner scoped(threadpool_ != nullptr ? &runner : nullptr);
  for (Step& step : steps_) {
    if (tracer == nullptr) {
      EF_RETURN_IF_ERROR(RunStep(step, temp));
      continue;
    }
    TraceEvent event{
        TraceEventKind::kDelegateNode,
        step.first == step.last ? NodeTypeName(g.nodes[step.first].type) : "xnnpack_runtime",
        EngineName(step.engine)};
    event.delegate_id = static_cast<int32_t>(g.nodes[step.first].debug_handle);
    const TraceToken token = tracer->Begin(event);
    const Error error = RunStep(step, temp);
    tracer->End(token);
    EF_RETURN_IF_ERROR(error);
  }
  return Error::kOk;
}

Error XnnpackDelegate::RunStep(Step& step, MemoryAllocator* temp) {
  const Graph& g = *graph_;
  if (step.engine != Engine::kXnnpack) {
    const Node& n = g.nodes[step.first];
    const void* in[8] = {};
    void* out[2] = {};
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      in[i] = n.inputs[i] == kInvalidId ? nullptr : data_[n.inputs[i]];
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) out[i] = data_[n.outputs[i]];
    const size_t mark = temp != nullptr ? temp->used() : 0;
    KernelContext ctx(temp, num_threads_);
    const void* packed = packed_filters_[step.first];
    Error e;
    switch (step.engine) {
      case Engine::kOwnInt8:
        e = RunInt8DenseNode(ctx, g, n, dims_, in, out, packed);
        break;
      case Engine::kOwnDense:
        e = RunDenseNode(ctx, g, n, dims_, in, out, static_cast<const float*>(packed));
        break;
      default:
        e = RunOwnNode(ctx, g, n, dims_, in, out);
        break;
    }
    if (temp != nullptr) temp->ResetTo(mark);
    return e;
  }
  bool changed = !step.set_up;
  for (size_t e = 0; e < step.externals.size(); ++e) {
    void* p = data_[step.external_values[e]];
    EF_CHECK_OR_RETURN(p != nullptr, Error::kInvalidArgument,
                       "xnnpack: value %u has no memory (a null tensor argument?)",
                       step.external_values[e]);
    changed = changed || step.externals[e].data != p;
    step.externals[e].data = p;
  }
  if (changed) {
    EF_CHECK_OR_RETURN(xnn_setup_runtime(step.runtime, step.externals.size(),
                                         step.externals.data()) == xnn_status_success,
                       Error::kInternal, "xnnpack: runtime setup failed");
    step.set_up = true;
  }
  EF_CHECK_OR_RETURN(xnn_invoke_runtime(step.runtime) == xnn_status_success, Error::kInternal,
                     "xnnpack: runtime invocation failed");
  return Error::kOk;
}

}  // namespace xnnpack
}  // namespace edgefleet
