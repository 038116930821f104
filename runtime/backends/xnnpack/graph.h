// Graph: a decoded, validated XNNPACK delegate payload — the values (tensors
// with their shapes, types, quantization and constant bytes) and the nodes in
// execution order, independent of any XNNPACK version.
//
// Produced by DecodeGraph (graph_decoder.h), which has already checked every
// id, shape, datatype and constant size (graph_validation.h), so compilers
// and node kernels may trust it. Owns the named-data buffers its constants
// point into; constants from the payload's own constant region are copied,
// so the payload may be freed after decoding. Immutable after decoding;
// safe for concurrent const use.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/core/freeable_buffer.h"

namespace edgefleet {
namespace xnnpack {

inline constexpr uint32_t kInvalidId = 0xFFFFFFFFu;  // XNN_INVALID_VALUE_ID
inline constexpr uint32_t kFlagExternalInput = 1;
inline constexpr uint32_t kFlagExternalOutput = 2;
// Bounds on what a payload may declare.
inline constexpr size_t kMaxValues = 1 << 20;
inline constexpr size_t kMaxNodes = 1 << 20;
inline constexpr uint32_t kMaxExternals = 4096;
inline constexpr size_t kMaxDims = 6;  // XNN_MAX_TENSOR_DIMS
// Sum of the bytes of all non-constant values (what compilation allocates:
// XNNPACK's workspace and the boundary buffers).
inline constexpr size_t kMaxValueBytes = size_t{1} << 30;

using Dims = std::vector<size_t>;

// The product of d[from, to) (1 for an empty range).
inline size_t Product(const Dims& d, size_t from, size_t to) {
  size_t n = 1;
  for (size_t i = from; i < to; ++i) n *= d[i];
  return n;
}

// Serialized XNNDatatype values.
enum class DataType : int16_t {
  kInvalid = 0,
  kFp32 = 1,
  kFp16 = 2,
  kQint8 = 3,
  kQuint8 = 4,
  kQint32 = 5,
  kQcint8 = 6,
  kQcint32 = 7,
  kQcint4 = 8,
  kQdint8 = 9,
  kQbint4 = 10,
  kQpint8 = 11,
  kInt32 = 12,
  kPfp32 = 13,
  kBf16 = 14,
};
const char* DataTypeName(DataType type);
// Bytes per element, 0 for types this delegate cannot hold (4-bit, packed).
size_t DataTypeSize(DataType type);

enum class QuantKind : uint8_t { kNone, kPerTensor, kPerChannel, kPerToken };

struct Value {
  uint32_t id = kInvalidId;
  DataType type = DataType::kInvalid;
  std::vector<size_t> dims;
  uint32_t external_id = kInvalidId;  // index into the DelegateCall's args
  uint32_t flags = 0;                 // kFlagExternalInput / kFlagExternalOutput
  const void* data = nullptr;         // constant bytes (null: not constant)
  QuantKind quant = QuantKind::kNone;
  float scale = 1.0f;                         // kPerTensor
  int32_t zero_point = 0;                     // kPerTensor
  std::vector<float> channel_scales;          // kPerChannel
  uint32_t channel_dim = 0;                   // kPerChannel
  int32_t num_nonbatch_dims = 0;              // kPerToken
  DataType dq_datatype = DataType::kInvalid;  // legacy dynamic quantization

  size_t numel() const;
  size_t nbytes() const { return numel() * DataTypeSize(type); }
  bool is_constant() const { return data != nullptr; }
  // qint8 with one zero point in int8 and a finite positive scale.
  bool is_per_tensor_qint8() const;
  bool is_external() const { return external_id != kInvalidId; }
};

// Serialized XNodeUnion tags.
enum class NodeType : uint8_t {
  kNone = 0,
  kAdd = 1,
  kFullyConnected,
  kSoftmax,
  kSigmoid,
  kStaticTranspose,
  kClamp,
  kConv2d,
  kDiv,
  kStaticResizeBilinear2D,
  kStaticConstantPad,
  kAvgPooling2d,
  kMinimum,
  kDepthwiseConv2d,
  kMaxPooling2d,
  kMultiply,
  kSubtract,
  kFloor,
  kConvert,
  kGlobalAvgPooling2d,
  kStaticReshape,
  kArgMaxPooling2d,
  kSquareRoot,
  kCeiling,
  kHardswish,
  kLeakyReLU,
  kMaximum,
  kNegate,
  kSquare,
  kELU,
  kAbs,
  kPReLU,
  kConcatenate2,
  kConcatenate3,
  kConcatenate4,
  kStaticSlice,
  kScaledDotProductAttention,
  kBatchMatrixMultiply,
  kConcatenate5,
  kConvTranspose2d,
  kReciprocalSquareRoot,
  kLog,
  kGelu,
  kTanh,
  kExp,
  kSin,
  kCopy,
  kCos,
  kLast = kCos,
};
// "XNNConv2d" etc., as the serialized union member is named.
const char* NodeTypeName(NodeType type);

struct WindowParams {  // convolution and pooling
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kernel_h = 1, kernel_w = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t dilation_h = 1, dilation_w = 1;
  uint32_t group_input_channels = 0, group_output_channels = 0, groups = 1;
  uint32_t adjustment_h = 0, adjustment_w = 0;
};

// An activation folded into the node that produces its input (never in a
// payload: FoldFloatActivations, activation_folding.h). Only our dense
// kernels compute it (the system XNNPACK has no such fused node).
enum class FusedActivation : uint8_t {
  kNone,
  kSilu,       // y = x * sigmoid(x) of the node's clamped output
  kHardswish,  // y = x * clamp(x + 3, 0, 6) / 6 of the node's clamped output
  kSigmoid,    // y = sigmoid(x) of the node's clamped output
};

struct Node {
  NodeType type = NodeType::kNone;
  uint32_t debug_handle = 0;
  float output_min = -__builtin_inff();
  float output_max = __builtin_inff();
  uint32_t flags = 0;
  // Value ids. Optional operands (bias, mask) are kInvalidId when absent.
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  WindowParams window;
  std::vector<size_t> list_a;  // transpose perm, reshape shape, slice offsets, pad pre
  std::vector<size_t> list_b;  // slice sizes, pad post
  float scalar = 0.0f;         // ELU alpha, leaky slope, pad value
  uint32_t axis = 0;           // concatenation
  uint32_t new_height = 0, new_width = 0;
  FusedActivation activation = FusedActivation::kNone;
};

struct Graph {
  std::vector<Value> values;  // indexed by id
  std::vector<Node> nodes;    // in execution order
  uint32_t num_externs = 0;
  // External ids of the graph's inputs and outputs, in value order.
  std::vector<uint32_t> input_values;   // value ids
  std::vector<uint32_t> output_values;  // value ids
  // Keeps named-data constants alive; payload constants are copied here.
  std::vector<FreeableBuffer> named_buffers;
  std::vector<std::unique_ptr<uint8_t[]>> owned_constants;
  size_t constant_bytes = 0;        // bytes of all constants (named + owned)
  size_t owned_constant_bytes = 0;  // bytes copied out of the payload
};

// Whether every value `node` reads (absent optional inputs aside) and
// writes is float32.
bool AllFp32(const Graph& graph, const Node& node);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_H_
