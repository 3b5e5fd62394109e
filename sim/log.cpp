#include "sim/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace acme::log {

void init(bool verbose) {
  auto logger = spdlog::stderr_color_mt("acmesim");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// The one instantiation of the formatting: spdlog's own templates (fmt's whole vformat_to, float
// formatting included) cost every file that logged about 3.5 CPU-seconds to compile.
void write(Level level, fmt::string_view format, fmt::format_args args) {
  const auto lvl = level == Level::debug ? spdlog::level::debug
                   : level == Level::info ? spdlog::level::info
                                          : spdlog::level::warn;
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (!logger->should_log(lvl)) return;
  logger->log(lvl, spdlog::string_view_t(fmt::vformat(format, args)));
}

}  // namespace acme::log
