// The processes that share one sweep: every rank of an MPI job (mpirun, or srun under Slurm),
// or this process alone. The one home of MPI: process_group_mpi.cpp is compiled when the build
// has ACMESIM_MPI=ON, process_group_local.cpp (always one process) otherwise. The processes are
// assumed to share a file system (they write runs into one output folder).
#pragma once

#include <cstddef>
#include <string>

namespace acme {

class ProcessGroup {
 public:
  // Joins the MPI job when launched by an MPI launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
  // PMIX_RANK in the environment); otherwise stands alone, without initializing MPI. A build
  // without MPI launched as several processes throws InputError rather than letting each
  // process run the whole sweep.
  ProcessGroup();
  ~ProcessGroup();  // leaves the MPI job
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_size() const { return local_size_; }  // processes on this machine, this one included

  void barrier();
  // The sum of `value` over every process; every process gets it. Collective, like barrier().
  std::size_t sum(std::size_t value);
  // Ends every process of the job with exit code `code` after printing `message`; for an error
  // one process cannot recover from while the others would wait for it forever.
  [[noreturn]] void abort(const std::string& message, int code);

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1;
  [[maybe_unused]] bool joined_ = false;  // MPI_Init was ours to call (process_group_mpi.cpp only)
};

// True if the environment says an MPI launcher started this process.
bool launched_by_mpi();

}  // namespace acme
