// Logging for people (progress, warnings); results come only from sinks. The one home of spdlog.
#pragma once

#include <spdlog/spdlog.h>

#include <utility>

namespace acme::log {

// Sends log lines to stderr; `verbose` adds debug lines. Call once, from main.
void init(bool verbose);

template <class... A>
void info(spdlog::format_string_t<A...> f, A&&... a) { spdlog::info(f, std::forward<A>(a)...); }
template <class... A>
void warn(spdlog::format_string_t<A...> f, A&&... a) { spdlog::warn(f, std::forward<A>(a)...); }
template <class... A>
void debug(spdlog::format_string_t<A...> f, A&&... a) { spdlog::debug(f, std::forward<A>(a)...); }

}  // namespace acme::log
