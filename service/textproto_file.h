// Reading config messages from textproto files, with errors that name the
// file, line and column ("classes/low.textproto:12:3: Message type
// "edgefleet.v1.Cpu" has no field named "core"."). Unknown fields are errors.
// Thread-safe (no shared state).

#ifndef EDGEFLEET_SERVICE_TEXTPROTO_FILE_H_
#define EDGEFLEET_SERVICE_TEXTPROTO_FILE_H_

#include <google/protobuf/message.h>

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace edgefleet {
namespace service {

// Parses `text` into `message` (cleared first); `origin` names the source in
// errors. Errors: INVALID_ARGUMENT with the first parse error.
absl::Status ParseTextproto(const std::string& text, const std::string& origin,
                            google::protobuf::Message* message);

// Reads and parses `path`. Errors: NOT_FOUND (unreadable), INVALID_ARGUMENT.
absl::Status ReadTextprotoFile(const std::string& path, google::protobuf::Message* message);

// Writes `message` as text to `path` (atomically: temp file + rename).
absl::Status WriteTextprotoFile(const std::string& path, const google::protobuf::Message& message,
                                const std::string& header_comment);

// Regular files in `dir` whose names end in `suffix`, sorted. Errors:
// NOT_FOUND if `dir` cannot be read.
absl::Status ListFiles(const std::string& dir, const std::string& suffix,
                       std::vector<std::string>* paths);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TEXTPROTO_FILE_H_
