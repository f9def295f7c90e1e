// The MPI back end of ngvi: when built with MPI and launched under mpirun with more than one rank,
// an MPI_COMM_WORLD process group is installed so run_replicates splits Monte Carlo replicates
// across ranks and gathers them (results are bitwise identical to one process). Without MPI this
// file only provides the no-op entry points.
#include "mpi_group.hpp"

#ifdef NGVI_WITH_MPI
#include <mpi.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "ngvi/parallel/replicates.hpp"

namespace ngvi::cli {
namespace {

class MpiGroup : public parallel::ProcessGroup {
 public:
  MpiGroup() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::byte> all_gather(const std::vector<std::byte>& mine) override {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<std::byte> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
    return all;
  }

 private:
  int rank_ = 0, size_ = 1;
};

std::unique_ptr<MpiGroup> g_group;

}  // namespace

int distributed_init(int* argc, char*** argv) {
  // Only a process started by mpirun/mpiexec joins MPI; a plain `ngvi` call never initialises it
  // (a singleton MPI_Init would start a runtime daemon for nothing).
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr) return 0;
  // Open MPI: unless the user chose a point-to-point layer (OMPI_MCA_pml, or --mca pml, which mpirun
  // passes the same way), take ob1 (shared memory between ranks of one machine, TCP between
  // machines). The ranks exchange only the gathered results, a few collective calls per claim, and
  // the default selection also initialises UCX, which made MPI_Init the largest part of a short run
  // (bench/README.md, "MPI").
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
  MPI_Init(argc, argv);
  g_group = std::make_unique<MpiGroup>();
  if (g_group->size() > 1) parallel::set_process_group(g_group.get());
  return g_group->rank();
}

void distributed_finalize() {
  if (!g_group) return;
  parallel::set_process_group(nullptr);
  g_group.reset();
  MPI_Finalize();
}

bool is_output_rank() { return !g_group || g_group->rank() == 0; }

bool distributed_enabled() { return true; }

}  // namespace ngvi::cli

#else

namespace ngvi::cli {
int distributed_init(int*, char***) { return 0; }
void distributed_finalize() {}
bool is_output_rank() { return true; }
bool distributed_enabled() { return false; }
}  // namespace ngvi::cli

#endif
