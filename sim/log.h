// Logging for people (progress, warnings); results come only from sinks. spdlog lives only in
// log.cpp: a caller's line is checked against its arguments at compile time (fmt/core.h), and
// formatted by the compiled fmt library, after the level check, only when it is printed.
#pragma once

#include <fmt/core.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace acme::log {

// Sends log lines to stderr; `verbose` adds debug lines. Call once, from main.
void init(bool verbose);

enum class Level { debug, info, warn };

// Formats and writes one line to spdlog's default logger, if its level lets `level` through.
void write(Level level, fmt::string_view format, fmt::format_args args);

template <class... A>
void info(fmt::format_string<A...> f, A&&... a) { write(Level::info, f, fmt::make_format_args(a...)); }
template <class... A>
void warn(fmt::format_string<A...> f, A&&... a) { write(Level::warn, f, fmt::make_format_args(a...)); }
template <class... A>
void debug(fmt::format_string<A...> f, A&&... a) { write(Level::debug, f, fmt::make_format_args(a...)); }

// A reader's warning about its input: logs "<source><text>" and, given `kept`, keeps the text
// (without the source) for the caller, as the trace cache does to log it again on later reads.
template <class... A>
void warn_kept(std::string_view source, std::vector<std::string>* kept, fmt::format_string<A...> f, A&&... a) {
  std::string text = fmt::format(f, std::forward<A>(a)...);
  warn("{}{}", source, text);
  if (kept) kept->push_back(std::move(text));
}

}  // namespace acme::log
