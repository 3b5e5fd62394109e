// ProcessGroup for builds without MPI: always this process alone.
#include <cstdio>
#include <cstdlib>

#include "sim/error.h"
#include "app/process_group.h"

namespace acme {

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

ProcessGroup::ProcessGroup() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  if (size && std::atoi(size) > 1)
    throw InputError("launched as " + std::string(size) +
                     " MPI processes, but this acmesim was built without MPI: rebuild with -DACMESIM_MPI=ON "
                     "(scripts/build.sh does when mpicc is installed)");
}

ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::barrier() {}
std::size_t ProcessGroup::sum(std::size_t value) { return value; }

void ProcessGroup::abort(const std::string& message, int code) {
  std::fprintf(stderr, "acmesim: error: %s\n", message.c_str());
  std::exit(code);
}

}  // namespace acme
