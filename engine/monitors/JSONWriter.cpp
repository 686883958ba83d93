#include "engine/monitors/JSONWriter.h"

#include "engine/monitors/ScalarJson.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

JSONWriter::JSONWriter(std::string path) : path_(std::move(path)) {}

nlohmann::json JSONWriter::load(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(str(path, ": not valid JSON: ", e.what()));
  }
  if (!doc.is_array()) throw InputError(str(path, ": expected a JSON list of stats"));
  return doc;
}

nlohmann::json JSONWriter::loadUpTo(const std::string& path, int64_t globalStep) {
  nlohmann::json kept = nlohmann::json::array();
  const nlohmann::json old = load(path);
  for (size_t i = 0; i < old.size(); ++i) {
    const nlohmann::json& entry = old[i];
    if (!entry.is_object()) continue;
    int64_t step = 0;
    if (const auto it = entry.find("global_step"); it != entry.end()) {
      // Only an integer is a step: get<int64_t> of a string throws a message without the file,
      // of 1e300 is undefined.
      if (!it->is_number_integer() ||
          (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX)) {
        throw InputError(str(path, ": entry ", i, " has \"global_step\": ", it->dump(),
                             ", expected an integer"));
      }
      step = it->get<int64_t>();
    }
    if (step <= globalStep) kept.push_back(entry);
  }
  return kept;
}

void JSONWriter::processScalar(const std::string& name, double value, const MetricStamp& stamp) {
  pending_[name] = value;
}

void JSONWriter::onBeforeTrain() {
  if (path_.empty()) {
    TB_CHECK(!context().runDir().empty(), "JSONWriter needs a path or a run directory");
    path_ = (std::filesystem::path(context().runDir()) / "stats.json").string();
  }
  if (!std::filesystem::exists(path_)) return;
  stats_ = loadUpTo(path_, context().globalStep());
  TB_LOG(Info) << "appending to " << path_ << " (" << stats_.size() << " earlier entries kept)";
}

void JSONWriter::onAfterTrain() {
  if (!pending_.empty()) flush();
  if (unsaved_.empty()) return;
  const std::string what =
      str(path_, " lacks the stats from global step ", unsavedFrom_, " on: ", unsaved_);
  unsaved_.clear();
  throw std::runtime_error(what);
}

void JSONWriter::flush() {
  if (pending_.empty()) return;
  nlohmann::json entry = nlohmann::json::object();
  for (const auto& [name, value] : pending_) {
    entry[name] = scalarToJson(value);  // Note [Non-finite scalars]
  }
  const int64_t step = context().globalStep();
  entry["epoch_num"] = context().epochNum();
  entry["global_step"] = step;
  stats_.push_back(std::move(entry));
  pending_.clear();
  try {
    writeFileAtomically(path_, stats_.dump(1) + "\n");
    if (!unsaved_.empty()) {
      TB_LOG(Info) << path_ << " written again: it has the stats from global step " << unsavedFrom_
                   << " on that an earlier write lost";
      unsaved_.clear();
    }
  } catch (const std::exception& e) {
    TB_LOG(Error) << "stats not saved: " << e.what();
    if (unsaved_.empty()) unsavedFrom_ = step;
    unsaved_ = e.what();
  }
}

}  // namespace tbench
