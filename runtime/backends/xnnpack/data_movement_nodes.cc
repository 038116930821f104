#include "runtime/backends/xnnpack/data_movement_nodes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/permute.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// Most inputs a concatenation node has (XNNConcatenate5).
constexpr size_t kMaxInputs = 5;
// A concatenation's rows split over threads in ranges of at least this many
// bytes.
constexpr int64_t kMinParallelBytes = 64 * 1024;

void Slice(const Dims& in, const Dims& out, const Node& n, const char* src, char* dst,
           size_t elem) {
  const size_t rank = in.size();
  const size_t total = Product(out, 0, out.size());
  if (total == 0) return;
  if (rank == 0) {
    std::memcpy(dst, src, elem);
    return;
  }
  size_t in_stride[kMaxDims];
  size_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    in_stride[i] = stride;
    stride *= in[i];
  }
  size_t index[kMaxDims] = {};
  const size_t inner = out[rank - 1];
  for (size_t o = 0; o < total; o += inner) {
    size_t base = 0;
    for (size_t i = 0; i < rank; ++i) base += (index[i] + n.list_a[i]) * in_stride[i];
    std::memcpy(dst + o * elem, src + base * elem, inner * elem);
    for (size_t i = rank - 1; i-- > 0;) {
      if (++index[i] < out[i]) break;
      index[i] = 0;
    }
  }
}

// Out's rows (the dims before the axis) are the inputs' rows in turn; the
// rows split over threads in ranges of about kMinParallelBytes.
void Concatenate(const Node& n, const std::vector<Dims>& dims, const void* const* in, char* dst,
                 size_t elem, int num_threads) {
  const Dims& out = dims[n.outputs[0]];
  const size_t outer = Product(out, 0, n.axis);
  const size_t out_row = Product(out, n.axis, out.size()) * elem;
  if (outer == 0 || out_row == 0) return;
  size_t row[kMaxInputs], offset[kMaxInputs];
  size_t at = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Dims& v = dims[n.inputs[i]];
    row[i] = Product(v, n.axis, v.size()) * elem;
    offset[i] = at;
    at += row[i];
  }
  const int64_t grain = std::max<int64_t>(1, kMinParallelBytes / static_cast<int64_t>(out_row));
  optimized::ParallelForRanges(
      static_cast<int64_t>(outer), grain, num_threads, [&](int64_t o0, int64_t o1) {
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          const char* src = static_cast<const char*>(in[i]);
          for (int64_t o = o0; o < o1; ++o) {
            std::memcpy(dst + o * out_row + offset[i], src + o * row[i], row[i]);
          }
        }
      });
}

}  // namespace

bool IsDataMovement(NodeType type) {
  switch (type) {
    case NodeType::kStaticTranspose:
    case NodeType::kStaticSlice:
    case NodeType::kStaticReshape:
    case NodeType::kConcatenate2:
    case NodeType::kConcatenate3:
    case NodeType::kConcatenate4:
    case NodeType::kConcatenate5:
      return true;
    default:
      return false;
  }
}

bool DataMovementSupports(const Graph& g, const Node& n) {
  if (!IsDataMovement(n.type)) return false;
  // Any one element type, the same scale for quantized types.
  const Value& out = g.values[n.outputs[0]];
  if (n.inputs.size() > kMaxInputs) return false;
  for (uint32_t id : n.inputs) {
    const Value& v = g.values[id];
    if (v.type != out.type || v.quant != out.quant || v.scale != out.scale ||
        v.zero_point != out.zero_point || DataTypeSize(v.type) == 0) {
      return false;
    }
  }
  return out.type != DataType::kQdint8;
}

Error RunDataMovementNode(const Graph& g, const Node& n, const std::vector<Dims>& dims,
                          const void* const* in, void* const* out, int num_threads) {
  const size_t elem = DataTypeSize(g.values[n.outputs[0]].type);
  const Dims& yd = dims[n.outputs[0]];
  switch (n.type) {
    case NodeType::kStaticTranspose: {
      const Dims& xd = dims[n.inputs[0]];
      int64_t sizes[kMaxDims], perm[kMaxDims];
      for (size_t i = 0; i < xd.size(); ++i) {
        sizes[i] = static_cast<int64_t>(xd[i]);
        perm[i] = static_cast<int64_t>(n.list_a[i]);
      }
      EF_CHECK_OR_RETURN(
          optimized::PermuteContiguous(in[0], sizes, perm, static_cast<int>(xd.size()), elem,
                                       out[0], num_threads),
          Error::kNotSupported, "xnnpack: XNNStaticTranspose of %zu-byte elements", elem);
      return Error::kOk;
    }
    case NodeType::kStaticSlice:
      Slice(dims[n.inputs[0]], yd, n, static_cast<const char*>(in[0]), static_cast<char*>(out[0]),
            elem);
      return Error::kOk;
    case NodeType::kStaticReshape:  // the same elements in the same order
      std::memcpy(out[0], in[0], Product(yd, 0, yd.size()) * elem);
      return Error::kOk;
    default:  // kConcatenate2..5 (DataMovementSupports)
      Concatenate(n, dims, in, static_cast<char*>(out[0]), elem, num_threads);
      return Error::kOk;
  }
}

}  // namespace xnnpack
}  // namespace edgefleet
