// Writes the seed corpus of request_decode_fuzzer: one file per case, the
// signature selector byte (request_decode_fuzzer.cc's signature index)
// followed by a serialized inference::ModelInferRequest. Valid requests
// (raw and typed contents) and invalid ones (wrong datatype, shape, count,
// names, raw/typed mix).
//
//   build/default/fuzz/edgefleet-fuzz-request-seeds fuzz/corpus/request_decode_fuzzer

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"

namespace {

using Request = inference::ModelInferRequest;
using Input = inference::ModelInferRequest::InferInputTensor;

Input* Add(Request* r, const std::string& name, const std::string& datatype,
           std::vector<int64_t> shape) {
  Input* in = r->add_inputs();
  in->set_name(name);
  in->set_datatype(datatype);
  for (int64_t d : shape) in->add_shape(d);
  return in;
}

int64_t Numel(const Input& in) {
  int64_t n = 1;
  for (int64_t d : in.shape()) n *= d;
  return n;
}

// Raw contents of `bytes_per_element` for every input, a simple pattern.
void AddRaw(Request* r, int input, size_t bytes_per_element) {
  std::string bytes(static_cast<size_t>(Numel(r->inputs(input))) * bytes_per_element, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 1);
  r->add_raw_input_contents(bytes);
}

void FillFp32(Input* in) {
  for (int64_t i = 0; i < Numel(*in); ++i) in->mutable_contents()->add_fp32_contents(0.5f * i);
}

bool Write(const std::string& dir, const std::string& name, uint8_t signature, const Request& r) {
  std::string bytes(1, static_cast<char>(signature));
  bytes += r.SerializeAsString();
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out << bytes;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  auto emit = [&](const std::string& name, uint8_t sig, const Request& r) {
    ok = Write(dir, name, sig, r) && ok;
  };

  {  // 0 small_cnn: raw FP32[1,3,16,16]
    Request r;
    r.set_model_name("small_cnn");
    Add(&r, "input_0", "FP32", {1, 3, 16, 16});
    AddRaw(&r, 0, 4);
    emit("valid_small_cnn_raw", 0, r);
    r.mutable_inputs(0)->set_shape(3, 32);  // wrong static shape
    emit("invalid_small_cnn_shape", 0, r);
  }
  {  // 1 mlp: typed FP32[4,16], plus an output selection
    Request r;
    r.set_model_name("mlp");
    FillFp32(Add(&r, "input_0", "FP32", {4, 16}));
    r.add_outputs()->set_name("output_0");
    emit("valid_mlp_typed", 1, r);
    r.mutable_outputs(0)->set_name("output_7");
    emit("valid_mlp_unknown_output", 1, r);
    r.mutable_inputs(0)->set_datatype("FP64");
    emit("invalid_mlp_datatype", 1, r);
    r.mutable_inputs(0)->set_datatype("FP32");
    r.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1.0f);
    emit("invalid_mlp_count", 1, r);
  }
  {  // 2 add: two raw FP32[2,3], given in reverse order
    Request r;
    r.set_model_name("add");
    Add(&r, "input_1", "FP32", {2, 3});
    Add(&r, "input_0", "FP32", {2, 3});
    AddRaw(&r, 0, 4);
    AddRaw(&r, 1, 4);
    emit("valid_add_raw_reordered", 2, r);
    Request twice = r;
    twice.mutable_inputs(0)->set_name("input_0");
    emit("invalid_add_twice", 2, twice);
    Request unknown = r;
    unknown.mutable_inputs(0)->set_name("input_9");
    emit("invalid_add_unknown", 2, unknown);
    Request missing = r;
    missing.mutable_inputs()->RemoveLast();
    missing.mutable_raw_input_contents()->RemoveLast();
    emit("invalid_add_missing", 2, missing);
    Request count = r;
    count.mutable_raw_input_contents()->RemoveLast();
    emit("invalid_add_raw_count", 2, count);
    Request mixed = r;
    mixed.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1.0f);
    emit("invalid_add_raw_and_typed", 2, mixed);
  }
  {  // 3 dynamic_bound: FP32 within [8,16]
    Request r;
    Add(&r, "input_0", "FP32", {3, 16});
    AddRaw(&r, 0, 4);
    emit("valid_dynamic_smaller", 3, r);
    Request empty;
    Add(&empty, "input_0", "FP32", {0, 16});
    emit("valid_dynamic_empty", 3, empty);
    Request over;
    Add(&over, "input_0", "FP32", {9, 16});
    AddRaw(&over, 0, 4);
    emit("invalid_dynamic_over_bound", 3, over);
    Request negative;
    Add(&negative, "input_0", "FP32", {-1, 16});
    emit("invalid_dynamic_negative", 3, negative);
    Request rank;
    Add(&rank, "input_0", "FP32", {8, 16, 1});
    emit("invalid_dynamic_rank", 3, rank);
  }
  {  // 4 token ids: typed INT64[1,16] x2
    Request r;
    for (int i = 0; i < 2; ++i) {
      Input* in = Add(&r, "input_" + std::to_string(i), "INT64", {1, 16});
      for (int k = 0; k < 16; ++k) in->mutable_contents()->add_int64_contents(k * 1000 + i);
    }
    emit("valid_tokens_typed", 4, r);
    r.mutable_inputs(1)->mutable_contents()->clear_int64_contents();
    for (int k = 0; k < 16; ++k) r.mutable_inputs(1)->mutable_contents()->add_int_contents(k);
    emit("invalid_tokens_wrong_field", 4, r);
  }
  {  // 5 every datatype, shape [2]: raw, and typed (FP16/BF16 cannot be typed)
    const char* types[] = {"BOOL",   "INT8",   "INT16", "INT32", "UINT8", "UINT16",
                           "UINT32", "UINT64", "FP64",  "FP16",  "BF16"};
    const size_t widths[] = {1, 1, 2, 4, 1, 2, 4, 8, 8, 2, 2};
    Request raw, typed;
    for (int i = 0; i < 11; ++i) {
      Add(&raw, "input_" + std::to_string(i), types[i], {2});
      AddRaw(&raw, i, widths[i]);
      Input* in = Add(&typed, "input_" + std::to_string(i), types[i], {2});
      auto* c = in->mutable_contents();
      for (int k = 0; k < 2; ++k) {
        switch (i) {
          case 0:
            c->add_bool_contents(k == 1);
            break;
          case 1:
          case 2:
          case 3:
            c->add_int_contents(-k * 300);
            break;
          case 4:
          case 5:
          case 6:
            c->add_uint_contents(k * 70000u);
            break;
          case 7:
            c->add_uint64_contents(~0ull - k);
            break;
          case 8:
            c->add_fp64_contents(1e300 * k);
            break;
          default:
            c->add_bytes_contents("ab");
            break;
        }
      }
    }
    emit("valid_all_datatypes_raw", 5, raw);
    emit("invalid_all_datatypes_typed", 5, typed);
  }
  {  // 6 a 0-d FP32 and an INT32 bounded by [3,0,2]
    Request r;
    Add(&r, "input_0", "FP32", {})->mutable_contents()->add_fp32_contents(3.5f);
    Add(&r, "input_1", "INT32", {2, 0, 1});
    emit("valid_scalar_and_empty", 6, r);
    r.mutable_inputs(1)->set_datatype("STRING");
    emit("invalid_unknown_datatype", 6, r);
  }
  if (!ok) {
    fprintf(stderr, "cannot write seeds into %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
