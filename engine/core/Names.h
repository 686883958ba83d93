#pragma once
// Names that are a contract: several parts of the engine, the files it writes and the window
// must spell them alike, and a misspelling in one place would silently break another (a
// schedule that sets nothing, a curve the window does not recognise). Plain C++, no LibTorch.
// The window, which does not see the engine, has its copies in app/bridge/BridgeTypes.h,
// checked equal at compile time (app/bridge/BridgeMonitor.cpp).

namespace tbench::names {

/// The learning rate: an optimizer's key in a project, the hyper-parameter the trainer
/// registers (the key of `schedule`, what a plateau rule, the window and a sweep set), the
/// scalar it is put as and its entry in a checkpoint's hyper_params.
inline constexpr const char* kLearningRate = "learning_rate";

}  // namespace tbench::names
