// The OpenMP team size of a plan's whole-tensor kernels (internal to
// backends/cpu).
//
// What it does: wholeKernelThreads() picks the team size the backend creates
// and runs a plan's whole-tensor oneDNN primitives with: one thread when the
// plan has tiled tasks (a mixed tiled/whole plan, GraphTurbo's, Welder's,
// BrickDL's), as its tiles already run (tiled.cpp); else the calling thread's
// OpenMP default (omp_get_max_threads(): OMP_NUM_THREADS, or the host's
// cores); a cap on the plan's threads (`--threads N`) caps it too. TeamSize sets it on a thread for a scope: the
// compiling thread (oneDNN 2.6 sizes a primitive's partition by the team size when it is created) and each worker lane
// of a run (primitives that ask for the current team size when they run).
//
// Why (issue 13; BENCHMARKS.md 2026-11-27, "OpenMP teams in mixed plans"):
// after a parallel region libgomp's team threads spin for the next one
// (GOMP_SPINCOUNT: 300000 turns by default, about 7 ms of a core measured on
// the 2-core VM) before they sleep, and a region only ends when every thread
// of its team got a core. In a mixed plan the few whole-tensor kernels'
// teams spin while the lane runs its thousands of single-threaded tiles, and
// on a loaded host every team region waits for its second thread: SqueezeNet's
// GraphTurbo plan took 2x the CPU time and 2-3x the latency of the same plan
// with OMP_NUM_THREADS=1. What the backend cannot do instead: set
// OMP_WAIT_POLICY or GOMP_SPINCOUNT (libgomp reads them once, when it is
// loaded, before main(); setting them later has no effect — checked, the spin
// count stays 300000), or release the team after each team kernel
// (omp_pause_resource stops the spinning, but restarting the team cost 26-33
// ms a time on the loaded host, against 1-1.5 ms for a region of a live team).
//
// The choice, where the papers say nothing: a mixed plan's parallelism is its
// lanes (concurrent tasks), so at most one thread per lane; a plan without
// tiles keeps intra-op teams (its kernels are larger, and a sequential plan
// has nothing else to run concurrently). A multi-lane plan without tiles (an
// IOS stage) still runs a team per lane, as before.
#pragma once

namespace tessera::cpu {

// The team size for the whole-tensor kernels of a plan with or without tiled
// tasks, on the calling thread (at least 1).
int wholeKernelThreads(bool planHasTiledTasks);

// Sets the calling thread's OpenMP team size (omp_set_num_threads) for the
// object's lifetime; restores the previous size after.
class TeamSize
{
public:
    explicit TeamSize(int threads);
    ~TeamSize();
    TeamSize(const TeamSize &) = delete;
    TeamSize &operator=(const TeamSize &) = delete;

private:
    int m_before;
};

} // namespace tessera::cpu
