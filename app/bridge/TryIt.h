#pragma once
// "Try it" for the window: the engine's tryCheckpoint (engine/predict/TryIt.h) behind Qt-only
// types (LearnedTypes.h). Implemented with the engine; nothing here includes it.

#include "app/bridge/LearnedTypes.h"

namespace tbench::bridge {

/// Runs `query` with the engine: restores the checkpoint's network and classifies the input.
/// Never throws: every failure comes back as TryItView::error. Any thread (it takes seconds
/// for a large dataset sample index: call it off the GUI thread).
TryItView tryIt(const TryItQuery& query);

}  // namespace tbench::bridge
