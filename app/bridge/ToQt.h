#pragma once
// The engine's values in Qt types, for the bridge's .cpp files only (it includes nlohmann/json;
// the window never includes it: tests/layering). readView is the one way a reader of the
// engine becomes a view the window takes: it never throws.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tbench::bridge {

inline QString q(const std::string& text) { return QString::fromStdString(text); }

inline QStringList toQt(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& item : items) out.append(q(item));
  return out;
}

inline QJsonValue toQt(const nlohmann::json& value) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(nlohmann::json::array({value}).dump()))
      .array()
      .at(0);
}

namespace detail {
template <class T, class = void>
struct HasPresent : std::false_type {};
template <class T>
struct HasPresent<T, std::void_t<decltype(std::declval<T&>().present)>> : std::true_type {};
}  // namespace detail

/// `fill(view)` reads through the engine into a new View. When the engine throws, the view is
/// empty but for `error` (the engine's message, which names the file or field) and, for a view
/// of a file (one with `present`), `present`: the file is there but cannot be used.
template <class View, class Fill>
View readView(Fill&& fill) {
  View view;
  try {
    fill(view);
  } catch (const std::exception& e) {
    view = View();
    if constexpr (detail::HasPresent<View>::value) view.present = true;
    view.error = q(e.what());
  }
  return view;
}

}  // namespace tbench::bridge
