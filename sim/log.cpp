#include "sim/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace acme::log {

void init(bool verbose) {
  auto logger = spdlog::stderr_color_mt("acmesim");
  logger->set_pattern("%^%l%$: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace acme::log
