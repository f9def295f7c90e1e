#pragma once
// Optional MPI back end (see mpi_group.cpp).
namespace ngvi::cli {
/// Initialises MPI when the build has it and installs the process group for run_replicates when
/// there is more than one rank. Returns this process's rank (0 without MPI).
int distributed_init(int* argc, char*** argv);
/// Finalises MPI (no-op without MPI).
void distributed_finalize();
/// True on the process that prints and writes files (rank 0, or the only process).
bool is_output_rank();
/// True when the binary was built with MPI.
bool distributed_enabled();
}  // namespace ngvi::cli
