// Anchor for the shared precompiled header (see TowerbenchTargets.cmake).
