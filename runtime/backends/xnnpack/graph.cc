#include "runtime/backends/xnnpack/graph.h"

#include <cmath>

namespace edgefleet {
namespace xnnpack {

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kInvalid:
      return "invalid";
    case DataType::kFp32:
      return "fp32";
    case DataType::kFp16:
      return "fp16";
    case DataType::kQint8:
      return "qint8";
    case DataType::kQuint8:
      return "quint8";
    case DataType::kQint32:
      return "qint32";
    case DataType::kQcint8:
      return "qcint8";
    case DataType::kQcint32:
      return "qcint32";
    case DataType::kQcint4:
      return "qcint4";
    case DataType::kQdint8:
      return "qdint8";
    case DataType::kQbint4:
      return "qbint4";
    case DataType::kQpint8:
      return "qpint8";
    case DataType::kInt32:
      return "int32";
    case DataType::kPfp32:
      return "pfp32";
    case DataType::kBf16:
      return "bf16";
  }
  return "unknown";
}

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFp32:
    case DataType::kQint32:
    case DataType::kQcint32:
    case DataType::kInt32:
      return 4;
    case DataType::kFp16:
    case DataType::kBf16:
      return 2;
    case DataType::kQint8:
    case DataType::kQuint8:
    case DataType::kQcint8:
    case DataType::kQdint8:
      return 1;
    default:
      return 0;
  }
}

bool Value::is_per_tensor_qint8() const {
  return type == DataType::kQint8 && quant == QuantKind::kPerTensor && zero_point >= -128 &&
         zero_point <= 127 && std::isfinite(scale) && scale > 0;
}

size_t Value::numel() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

const char* NodeTypeName(NodeType type) {
  static constexpr const char* kNames[] = {"NONE",
                                           "XNNAdd",
                                           "XNNFullyConnected",
                                           "XNNSoftmax",
                                           "XNNSigmoid",
                                           "XNNStaticTranspose",
                                           "XNNClamp",
                                           "XNNConv2d",
                                           "XNNDiv",
                                           "XNNStaticResizeBilinear2D",
                                           "XNNStaticConstantPad",
                                           "XNNAvgPooling2d",
                                           "XNNMinimum",
                                           "XNNDepthwiseConv2d",
                                           "XNNMaxPooling2d",
                                           "XNNMultiply",
                                           "XNNSubtract",
                                           "XNNFloor",
                                           "XNNConvert",
                                           "XNNGlobalAvgPooling2d",
                                           "XNNStaticReshape",
                                           "XNNArgMaxPooling2d",
                                           "XNNSquareRoot",
                                           "XNNCeiling",
                                           "XNNHardswish",
                                           "XNNLeakyReLU",
                                           "XNNMaximum",
                                           "XNNNegate",
                                           "XNNSquare",
                                           "XNNELU",
                                           "XNNAbs",
                                           "XNNPReLU",
                                           "XNNConcatenate2",
                                           "XNNConcatenate3",
                                           "XNNConcatenate4",
                                           "XNNStaticSlice",
                                           "XNNScaledDotProductAttention",
                                           "XNNBatchMatrixMultiply",
                                           "XNNConcatenate5",
                                           "XNNConvTranspose2d",
                                           "XNNReciprocalSquareRoot",
                                           "XNNLog",
                                           "XNNGelu",
                                           "XNNTanh",
                                           "XNNExp",
                                           "XNNSin",
                                           "XNNCopy",
                                           "XNNCos"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(NodeType::kLast) + 1);
  const size_t i = static_cast<size_t>(type);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "unknown";
}

bool AllFp32(const Graph& g, const Node& n) {
  for (uint32_t id : n.inputs) {
    if (id != kInvalidId && g.values[id].type != DataType::kFp32) return false;
  }
  for (uint32_t id : n.outputs) {
    if (g.values[id].type != DataType::kFp32) return false;
  }
  return true;
}

}  // namespace xnnpack
}  // namespace edgefleet
