#pragma once
// The listings of the registry: `towerbench-cli types` and the generated key reference of
// docs/PROJECT-FORMAT.md (test_Registry fails when the page is out of date).

#include <string>

namespace tbench {

/// The key reference: every kind, type and key, as the Markdown of docs/PROJECT-FORMAT.md
/// between its "generated" markers.
std::string keyReferenceMarkdown();
/// The listing of `towerbench-cli types [KIND]`: every type with its keys, defaults and help.
std::string typeListingText(const std::string& kind = "");

}  // namespace tbench
