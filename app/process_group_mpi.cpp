// ProcessGroup over MPI (compiled only with ACMESIM_MPI=ON).
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app/process_group.h"

namespace acme {

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

ProcessGroup::ProcessGroup() {
  // A plain `acmesim sweep` stays a plain process: MPI's singleton start-up is slow and needs
  // a launcher daemon on some installations.
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    joined_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
}

ProcessGroup::~ProcessGroup() {
  if (joined_) MPI_Finalize();
}

void ProcessGroup::barrier() {
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
}

std::size_t ProcessGroup::sum(std::size_t value) {
  if (size_ == 1) return value;
  std::uint64_t in = value, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return static_cast<std::size_t>(out);
}

void ProcessGroup::abort(const std::string& message, int code) {
  std::fprintf(stderr, "acmesim: error (rank %d): %s\n", rank_, message.c_str());
  std::fflush(stderr);
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace acme
