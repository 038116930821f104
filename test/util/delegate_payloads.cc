#include "test/util/delegate_payloads.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace test {

Result<std::unique_ptr<LoadedPte>> LoadedPte::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::kNotFound;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return FromBytes(std::move(bytes));
}

Result<std::unique_ptr<LoadedPte>> LoadedPte::FromBytes(std::vector<uint8_t> bytes) {
  std::unique_ptr<LoadedPte> pte(new LoadedPte());
  pte->size_ = bytes.size();
  pte->bytes_.reset(new uint8_t[bytes.size() + 1]);
  if (!bytes.empty()) std::memcpy(pte->bytes_.get(), bytes.data(), bytes.size());
  pte->loader_ = std::make_unique<BufferDataLoader>(pte->bytes_.get(), pte->size_);
  Result<Program> program = Program::Load(pte->loader_.get());
  if (!program.ok()) return program.error();
  pte->program_ = std::make_unique<Program>(std::move(program.get()));
  return pte;
}

Result<std::vector<DelegatePayload>> LoadedPte::Payloads(const char* backend_id) const {
  std::vector<DelegatePayload> out;
  const auto* fb = program_->flatbuffer();
  const auto* plans = fb->execution_plan();
  for (uint32_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const auto* plan = plans->Get(p);
    const auto* delegates = plan->delegates();
    for (uint32_t d = 0; delegates != nullptr && d < delegates->size(); ++d) {
      const auto* delegate = delegates->Get(d);
      if (delegate->id() == nullptr || delegate->id()->str() != backend_id) continue;
      DelegatePayload payload;
      payload.method = plan->name() ? plan->name()->str() : "";
      payload.index = d;
      payload.backend = backend_id;
      const auto* ref = delegate->processed();
      if (ref->location() == edgefleet_fb::DataLocation::INLINE) {
        const auto* data = fb->backend_delegate_data()->Get(ref->index())->data();
        payload.bytes.assign(data->begin(), data->end());
      } else {
        Result<FreeableBuffer> segment = program_->LoadSegment(
            ref->index(), SegmentInfo{SegmentInfo::Type::kBackend, ref->index(), backend_id});
        if (!segment.ok()) return segment.error();
        const auto* begin = static_cast<const uint8_t*>(segment.get().data());
        payload.bytes.assign(begin, begin + segment.get().size());
      }
      out.push_back(std::move(payload));
    }
  }
  return out;
}

}  // namespace test
}  // namespace edgefleet
