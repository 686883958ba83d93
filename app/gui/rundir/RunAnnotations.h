#pragma once
// What the user says about a run: a label and notes, kept in the run directory as
// annotations.json (docs/ARCHITECTURE.md, "the run directory"):
//
//   {"format": 1, "label": "lr 3e-3, no dropout", "notes": "diverged at epoch 4 #baseline",
//    "tags": ["baseline"]}
//
// Only the window writes it (Run History: the Run and Notes cells); the engine never reads it.
// Tags are the notes' words that start with '#'; "tags" repeats them for scripts. The file is
// written atomically (QSaveFile). Reading never throws: a damaged file gives an error naming
// it, and the run is listed without a label.

#include <QString>
#include <QStringList>

namespace tbench::gui {

inline constexpr const char* kAnnotationsFileName = "annotations.json";

struct RunAnnotations {
  QString label;
  QString notes;
  QString error;  ///< why annotations.json could not be read; empty when fine or absent

  /// The '#'-words of `notes`, without the '#', in order, each once.
  QStringList tags() const;
};

/// Reads <runDir>/annotations.json; an absent file gives empty annotations and no error.
RunAnnotations readRunAnnotations(const QString& runDir);

/// Writes <runDir>/annotations.json atomically; removes it when label and notes are empty.
/// Returns false with `*error` (naming the file) on failure.
bool writeRunAnnotations(const QString& runDir, const QString& label, const QString& notes,
                         QString* error = nullptr);

}  // namespace tbench::gui
