// The OpenMP team size of a plan's whole-tensor kernels (see ompteam.h).
#include "backends/cpu/ompteam.h"

#include <algorithm>
#include <omp.h>

namespace tessera::cpu {

int wholeKernelThreads(bool planHasTiledTasks)
{
    return planHasTiledTasks ? 1 : std::max(1, omp_get_max_threads());
}

TeamSize::TeamSize(int threads) : m_before(omp_get_max_threads())
{
    omp_set_num_threads(std::max(1, threads));
}

TeamSize::~TeamSize()
{
    omp_set_num_threads(m_before);
}

} // namespace tessera::cpu
