#include "service/textproto_file.h"

#include <dirent.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace edgefleet {
namespace service {
namespace {

// Keeps the first error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstErrorCollector(std::string origin) : origin_(std::move(origin)) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!first_.empty()) return;
    first_ = origin_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " +
             message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string origin_;
  std::string first_;
};

}  // namespace

absl::Status ParseTextproto(const std::string& text, const std::string& origin,
                            google::protobuf::Message* message) {
  message->Clear();
  FirstErrorCollector errors(origin);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, message)) {
    return absl::InvalidArgumentError(errors.first().empty() ? origin + ": malformed textproto"
                                                             : errors.first());
  }
  return absl::OkStatus();
}

absl::Status ReadTextprotoFile(const std::string& path, google::protobuf::Message* message) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseTextproto(buffer.str(), path, message);
}

absl::Status WriteTextprotoFile(const std::string& path, const google::protobuf::Message& message,
                                const std::string& header_comment) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(message, &text)) {
    return absl::InternalError("cannot print " + message.GetTypeName());
  }
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError("cannot write '" + temp + "'");
    out << header_comment << text;
    if (!out.flush()) return absl::DataLossError("writing '" + temp + "' failed");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    return absl::PermissionDeniedError("cannot rename '" + temp + "' to '" + path + "'");
  }
  return absl::OkStatus();
}

absl::Status ListFiles(const std::string& dir, const std::string& suffix,
                       std::vector<std::string>* paths) {
  paths->clear();
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return absl::NotFoundError("cannot read directory '" + dir + "'");
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) paths->push_back(path);
  }
  closedir(d);
  std::sort(paths->begin(), paths->end());
  return absl::OkStatus();
}

}  // namespace service
}  // namespace edgefleet
