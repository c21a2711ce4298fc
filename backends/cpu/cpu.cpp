// The CPU backend (see cpu.h): S1 verify and load constants, S2 lower every
// task (lower.h), S3b activation layouts (layout.h), S3 dependencies (the
// plan's, plus each reader's wait for the earlier tasks that wrote a part of
// the region it reads: addDependencies), S4 arena placement; run() executes
// the task graph on a thread pool.
#include "backends/cpu/cpu.h"

#include "backends/cpu/layout.h"
#include "backends/cpu/lower.h"
#include "backends/cpu/ompteam.h"
#include "backends/cpu/perfcounters.h"
#include "backends/cpu/workerpool.h"
#include "core/hw/device.h"
#include "core/onnx/external_data.h"
#include "core/plan/ancestry.h"
#include "core/plan/regionindex.h"
#include "core/plan/taskmaps.h"
#include "core/plan/taskwork.h"
#include "core/plan/verify.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <span>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <unordered_set>

namespace tessera {

namespace {

using cpu::CpuOpPtr;
using cpu::Engine;
using Clock = std::chrono::steady_clock;

constexpr const char *kName = "cpu";
constexpr std::int64_t kAlign = 64;

double nsSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

struct AlignedFree {
    void operator()(std::uint8_t *p) const { ::operator delete[](p, std::align_val_t(kAlign)); }
};
using ArenaPtr = std::unique_ptr<std::uint8_t[], AlignedFree>;

struct TaskProgram {
    TaskId id = 0;
    std::vector<CpuOpPtr> ops;
    std::vector<int> deps;       // task indices that must finish first
    std::vector<int> dependents; // the reverse
    std::string summary;         // "onednn[x64:gemm:jit]:Conv+Add, llvm-jit:Relu" (engine[impl]:label per op)
    // Fused intermediates (lower.h TaskScratch): per part of the ops (one
    // per tile when the task runs tile by tile), each at its offset in the
    // worker's scratch of `scratchBytes`; the part's ops see them there.
    std::vector<cpu::TaskScratch::Part> parts;
    std::int64_t scratchBytes = 0;
    TaskWork work; // FLOPs and bytes of the task's regions (core/plan/taskwork.h)
};

class CpuPlan final : public CompiledPlan
{
public:
    CpuPlan() : CompiledPlan(kName) {}

    Graph graph; // a copy: ops refer to it
    cpu::Constants constants;
    std::vector<TaskProgram> tasks;
    std::vector<std::int64_t> offset; // per tensor: arena offset, -1 if not in the arena
    std::vector<bool> written;        // per tensor: some op writes it
    std::vector<std::int64_t> bytes;  // per tensor: its storage in the layout chosen (layout.h)
    std::int64_t arenaBytes = 0;
    int width = 1;        // most tasks at one dependency depth
    int threads = 0;      // the plan's own cap on workers (compileFor's "threads"); 0: the backend's
    int teamThreads = 1;  // OpenMP team of its whole-tensor kernels (ompteam.h), compiled and run with
    double peakFlops = 0; // f32 FLOP/s of the CPU device the plan was compiled for (0: not known)
    std::map<std::string, double> compileMetrics;
    // The arena of the last finished run, handed to the next one: a fresh
    // allocation of this size is mmap()ed and page-faulted in on every run.
    mutable std::mutex arenaMutex;
    mutable ArenaPtr spareArena;
};

// S3: dependencies. A task waits for the plan's dependencies and for every
// earlier task that writes a part of a tensor it reads (read after write).
// Accesses are the regions of a tiled task (core/plan/tiles.h: what it reads
// from outside its kernel, and what it computes of its kernel's tensors,
// which covers what it writes and reads of them); every other access is the
// whole tensor: a task of whole tensors, a tensor no region names (a whole
// scale read by a tiled op, an assigned node's source), a task whose regions
// are not exact, and a blocked tensor (layout.h: an op may touch a whole
// channel block, and a plain view reorders the whole tensor). A brick of
// BrickDL's plans reading a region of a tensor hundreds of bricks wrote then
// waits for the few whose bricks it reads, not for all of them (issue 13:
// Swin-V2-B spent most of its compile on O(bricks²) edges). An earlier task
// that is already an ancestor through a prefix of the plan (every task before
// a barrier the task waits for) adds no edge.
// Two tasks writing a region both write the same values (a verified plan's
// tiles of a kernel output are disjoint; only recomputed halos, the
// intermediates of one kernel's tasks and assigned nodes overlap), so writes
// after writes or reads are not ordered by the data (nor were they before,
// unless the later task happened to read anything the earlier one wrote);
// the arena orders the uses of two tensors sharing bytes itself (placeArena).
// Fills each task's deps (each once, in no order) and dependents.
struct Access {
    int task;
    bool known = false; // `region` worked out (only when some reader asks)
    ops::Region region; // in the tensor's coordinates; the whole tensor's for a whole access
};

bool overlaps(const ops::Region &a, const ops::Region &b)
{
    if (a.size() != b.size())
        return true; // not comparable: assume they do
    for (std::size_t d = 0; d < a.size(); ++d)
        if (a[d].begin >= b[d].end || b[d].begin >= a[d].end)
            return false;
    return true;
}

Status addDependencies(CpuPlan &out, const ExecutionPlan &plan, const std::vector<bool> &tiled,
                       const std::vector<bool> &blocked)
{
    const Graph &g = out.graph;
    const std::size_t n = out.tasks.size();

    // The region task i reads (or writes) of tensor x, worked out when asked:
    // most readers have no earlier writer left to test (the plan's barriers).
    std::vector<std::unique_ptr<KernelIndexMaps>> maps(plan.kernels.size());
    auto regionOf = [&](std::size_t i, TensorId x, bool write) -> Expected<ops::Region> {
        const Task &t = plan.tasks[i];
        if (t.kind == TaskKind::Compute && tiled[i] && !blocked[static_cast<std::size_t>(x)]) {
            auto &m = maps[static_cast<std::size_t>(t.kernel)];
            if (!m)
                m = std::make_unique<KernelIndexMaps>(g, plan.kernels[static_cast<std::size_t>(t.kernel)]);
            auto regions = taskRegions(g, plan.kernels[static_cast<std::size_t>(t.kernel)], t.tiles, m.get());
            if (!regions)
                return regions.status();
            if (regions->exact) {
                if (!write)
                    if (auto it = regions->read.find(x); it != regions->read.end())
                        return it->second;
                if (auto it = regions->computed.find(x); it != regions->computed.end())
                    return it->second;
            }
        }
        return ops::fullRegion(g.tensor(x).shape);
    };
    auto know = [&](Access &a, TensorId x) -> Status {
        if (!a.known) {
            auto r = regionOf(static_cast<std::size_t>(a.task), x, true);
            if (!r)
                return r.status();
            a.region = std::move(*r);
            a.known = true;
        }
        return Status::ok();
    };

    // The tensors an op list reads (constants aside) or writes, each once.
    auto tensorsOf = [&](const std::vector<CpuOpPtr> &ops, bool write) {
        std::vector<TensorId> list;
        for (const CpuOpPtr &op : ops)
            for (TensorId x : write ? op->writes : op->reads)
                if (write || !g.tensor(x).isConstant())
                    list.push_back(x);
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        return list;
    };
    // Per tensor its writers, in task order.
    std::vector<std::vector<Access>> writes(g.tensorCount());
    for (std::size_t i = 0; i < n; ++i)
        for (TensorId x : tensorsOf(out.tasks[i].ops, true))
            writes[static_cast<std::size_t>(x)].push_back({static_cast<int>(i)});
    // Tensors many tasks write get an index of their regions when first
    // asked (a padded BrickDL sub-graph's chains all write every member's).
    constexpr std::size_t kScanned = 64;
    std::vector<std::vector<const ops::Region *>> items(g.tensorCount());
    std::vector<std::unique_ptr<RegionIndex>> index(g.tensorCount());

    std::vector<int> indexOfTask; // per TaskId
    for (std::size_t i = 0; i < n; ++i) {
        const auto id = static_cast<std::size_t>(plan.tasks[i].id);
        if (indexOfTask.size() <= id)
            indexOfTask.resize(id + 1, -1);
        indexOfTask[id] = static_cast<int>(i);
    }
    // floor[i]: every task before it in plan order is an ancestor of task i.
    std::vector<int> floor(n, 0), mark(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        const int self = static_cast<int>(i);
        std::vector<int> deps;
        int below = 0; // every task before `below` is an ancestor
        auto depend = [&](int d) {
            if (d != self && mark[static_cast<std::size_t>(d)] != self) {
                mark[static_cast<std::size_t>(d)] = self;
                deps.push_back(d);
                below = std::max(below, floor[static_cast<std::size_t>(d)]);
            }
        };
        auto extendBelow = [&] {
            while (below < self && mark[static_cast<std::size_t>(below)] == self)
                below = std::max(below + 1, floor[static_cast<std::size_t>(below)]);
        };
        for (TaskId d : plan.tasks[i].deps)
            if (d >= 0 && static_cast<std::size_t>(d) < indexOfTask.size() &&
                indexOfTask[static_cast<std::size_t>(d)] >= 0 && indexOfTask[static_cast<std::size_t>(d)] < self)
                depend(indexOfTask[static_cast<std::size_t>(d)]);
        extendBelow();
        // The writers from `below` (what the plan's dependencies leave) to
        // this task whose regions overlap one it reads.
        const int from = below;
        for (TensorId x : tensorsOf(out.tasks[i].ops, false)) {
            const auto tx = static_cast<std::size_t>(x);
            std::vector<Access> &w = writes[tx];
            auto byTask = [](const Access &a, int task) { return a.task < task; };
            const auto lo = std::lower_bound(w.begin(), w.end(), from, byTask);
            const auto hi = std::lower_bound(lo, w.end(), self, byTask);
            if (lo == hi)
                continue;
            auto region = regionOf(i, x, false);
            if (!region)
                return region.status();
            if (hi - lo <= static_cast<std::ptrdiff_t>(kScanned) || w.size() <= kScanned) {
                for (auto it = lo; it != hi; ++it) {
                    if (mark[static_cast<std::size_t>(it->task)] == self)
                        continue;
                    TS_TRY(know(*it, x));
                    if (overlaps(it->region, *region))
                        depend(it->task);
                }
                continue;
            }
            if (!index[tx]) {
                for (Access &a : w) {
                    TS_TRY(know(a, x));
                    items[tx].push_back(&a.region);
                }
                index[tx] = std::make_unique<RegionIndex>(items[tx]);
            }
            index[tx]->forOverlapping(*region, [&](std::size_t k) {
                if (w[k].task >= from && w[k].task < self)
                    depend(w[k].task);
            });
        }
        extendBelow();
        floor[i] = below;
        for (int d : deps)
            out.tasks[static_cast<std::size_t>(d)].dependents.push_back(self);
        out.tasks[i].deps = std::move(deps);
    }
    return Status::ok();
}

// S4: arena offsets. Tensor B may reuse A's bytes only when every task using A
// is a strict ancestor of every task using B, or the other way round (so no
// interleaving can touch both). Graph outputs are written straight into the
// result's buffers. First fit, in two orders — by first writer, and largest
// first — keeping the smaller arena (first fit is not monotone: a plan with
// fewer tensors, its fused intermediates gone, can pack worse in one order).
// That needs the tasks' ancestor matrix (tasks² bits): a plan of more than
// `maxSharing` tasks gives each intermediate its own bytes instead. Returns
// whether bytes may be shared.
bool placeArena(CpuPlan &p, std::size_t maxSharing)
{
    const std::size_t nTasks = p.tasks.size(), words = (nTasks + 63) / 64;
    if (nTasks > maxSharing) {
        p.offset.assign(p.graph.tensorCount(), -1);
        const std::unordered_set<TensorId> outputs(p.graph.outputs.begin(), p.graph.outputs.end());
        std::vector<bool> written(p.graph.tensorCount(), false);
        std::vector<std::pair<int, TensorId>> order; // by first writer, as below
        for (std::size_t i = 0; i < nTasks; ++i)
            for (const CpuOpPtr &op : p.tasks[i].ops)
                for (TensorId t : op->writes)
                    if (!written[static_cast<std::size_t>(t)] && !outputs.count(t)) {
                        written[static_cast<std::size_t>(t)] = true;
                        order.push_back({static_cast<int>(i), t});
                    }
        for (const auto &[firstWriter, t] : order) {
            const std::int64_t bytes =
                (std::max<std::int64_t>(p.bytes[static_cast<std::size_t>(t)], 1) + kAlign - 1) / kAlign * kAlign;
            p.offset[static_cast<std::size_t>(t)] = p.arenaBytes;
            p.arenaBytes += bytes;
        }
        return false;
    }
    const AncestorBits anc(nTasks, [&](std::size_t t) { return std::span<const int>(p.tasks[t].deps); });
    const Graph &g = p.graph;
    std::vector<std::vector<int>> users(g.tensorCount()), writers(g.tensorCount());
    for (std::size_t i = 0; i < nTasks; ++i)
        for (const CpuOpPtr &op : p.tasks[i].ops) {
            auto add = [&](std::vector<int> &tasks) {
                if (tasks.empty() || tasks.back() != static_cast<int>(i))
                    tasks.push_back(static_cast<int>(i));
            };
            for (TensorId t : op->reads)
                add(users[static_cast<std::size_t>(t)]);
            for (TensorId t : op->writes) {
                add(users[static_cast<std::size_t>(t)]);
                add(writers[static_cast<std::size_t>(t)]);
            }
        }
    const std::unordered_set<TensorId> outputs(g.outputs.begin(), g.outputs.end());
    auto sizeOf = [&](TensorId t) {
        return (std::max<std::int64_t>(p.bytes[static_cast<std::size_t>(t)], 1) + kAlign - 1) / kAlign * kAlign;
    };
    std::vector<std::pair<int, TensorId>> order; // by first writer
    for (std::size_t t = 0; t < g.tensorCount(); ++t)
        if (!writers[t].empty() && !outputs.count(static_cast<TensorId>(t)))
            order.push_back({*std::min_element(writers[t].begin(), writers[t].end()), static_cast<TensorId>(t)});
    std::stable_sort(order.begin(), order.end());
    std::vector<TensorId> byWriter, bySize;
    for (const auto &[firstWriter, t] : order)
        byWriter.push_back(t);
    bySize = byWriter;
    std::stable_sort(bySize.begin(), bySize.end(), [&](TensorId a, TensorId b) { return sizeOf(a) > sizeOf(b); });

    // Every use of `a` precedes every use of `b`: the users of `a` (a bitset
    // over tasks) are all among the tasks that are ancestors of every user of
    // `b` (their ancestor rows ANDed) — a few hundred word operations per
    // pair, where walking users × users of two tensors that a thousand bricks
    // each touch took seconds (VGG-16 under BrickDL). Every user of `b`, not
    // only its writers: a reader of `b` waits only for the writers of the
    // region it reads (S3), so the order of `b`'s readers does not follow
    // from its writers'.
    std::vector<std::vector<std::uint64_t>> usedBy(g.tensorCount()), beforeAllUsers(g.tensorCount());
    for (const auto &[firstWriter, t] : order) {
        auto &u = usedBy[static_cast<std::size_t>(t)];
        u.assign(words, 0);
        for (int task : users[static_cast<std::size_t>(t)])
            u[static_cast<std::size_t>(task) / 64] |= 1ull << (static_cast<std::size_t>(task) % 64);
        auto &a = beforeAllUsers[static_cast<std::size_t>(t)];
        a.assign(words, ~0ull);
        for (int w : users[static_cast<std::size_t>(t)])
            for (std::size_t k = 0; k < words; ++k)
                a[k] &= anc.row(static_cast<std::size_t>(w))[k];
    }
    auto precedes = [&](TensorId a, TensorId b) {
        const auto &u = usedBy[static_cast<std::size_t>(a)], &before = beforeAllUsers[static_cast<std::size_t>(b)];
        for (std::size_t k = 0; k < words; ++k)
            if (u[k] & ~before[k])
                return false;
        return true;
    };
    struct Block {
        std::int64_t offset, bytes;
        TensorId tensor;
    };
    auto place = [&](const std::vector<TensorId> &tensors, std::vector<std::int64_t> &offset) {
        std::vector<Block> blocks;
        std::int64_t arena = 0;
        offset.assign(g.tensorCount(), -1);
        for (TensorId t : tensors) {
            const std::int64_t bytes = sizeOf(t);
            std::vector<std::pair<std::int64_t, std::int64_t>> busy;
            for (const Block &b : blocks)
                if (!precedes(b.tensor, t) && !precedes(t, b.tensor))
                    busy.push_back({b.offset, b.offset + b.bytes});
            std::sort(busy.begin(), busy.end());
            std::int64_t at = 0;
            for (const auto &[lo, hi] : busy) {
                if (lo - at >= bytes)
                    break;
                at = std::max(at, hi);
            }
            offset[static_cast<std::size_t>(t)] = at;
            arena = std::max(arena, at + bytes);
            blocks.push_back({at, bytes, t});
        }
        return arena;
    };
    std::vector<std::int64_t> other;
    p.arenaBytes = place(byWriter, p.offset);
    if (const std::int64_t arena = place(bySize, other); arena < p.arenaBytes) {
        p.arenaBytes = arena;
        p.offset = std::move(other);
    }
    return true;
}

// The tensor table a part of a task with fused intermediates runs on: the
// run's, with the part's in this thread's scratch (kept for the thread's
// later tasks).
std::uint8_t *const *localTable(const std::vector<std::uint8_t *> &tensors, const TaskProgram &task,
                                const cpu::TaskScratch::Part &part)
{
    thread_local std::vector<std::uint8_t *> table;
    thread_local std::vector<std::uint8_t> scratch;
    table.assign(tensors.begin(), tensors.end());
    const auto need = static_cast<std::size_t>(task.scratchBytes + kAlign);
    if (scratch.size() < need)
        scratch.resize(need);
    const auto base = (reinterpret_cast<std::uintptr_t>(scratch.data()) + kAlign - 1) / kAlign * kAlign;
    for (const auto &[t, offset] : part.offset)
        table[static_cast<std::size_t>(t)] =
            reinterpret_cast<std::uint8_t *>(base + static_cast<std::uintptr_t>(offset));
    return table.data();
}

std::string bytesText(double b)
{
    const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        ++u;
    }
    char text[32];
    std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    return text;
}

// The memory this host lets the process have: physical memory, capped by
// RLIMIT_AS and RLIMIT_DATA when they are set.
double hostMemoryLimit()
{
    double limit = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
    for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
        rlimit r{};
        if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
            limit = std::min(limit, static_cast<double>(r.rlim_cur));
    }
    return limit;
}

// A plan whose run buffers (the arena and the outputs) exceed what the host
// allows fails at compile time, naming its largest buffer, before a run
// tries to allocate them.
Status checkMemory(const CpuPlan &p)
{
    const Graph &g = p.graph;
    double total = static_cast<double>(p.arenaBytes);
    TensorId largest = kInvalidId;
    for (std::size_t t = 0; t < g.tensorCount(); ++t) {
        const bool output = std::find(g.outputs.begin(), g.outputs.end(), static_cast<TensorId>(t)) != g.outputs.end();
        if (output)
            total += static_cast<double>(g.tensor(static_cast<TensorId>(t)).bytes());
        if ((output || p.offset[t] >= 0) &&
            (largest == kInvalidId || g.tensor(static_cast<TensorId>(t)).bytes() > g.tensor(largest).bytes()))
            largest = static_cast<TensorId>(t);
    }
    const double limit = hostMemoryLimit();
    if (total <= limit || largest == kInvalidId)
        return Status::ok();
    const Tensor &big = g.tensor(largest);
    return Status::error(ErrorCode::Unsupported,
                         "the plan's buffers need " + bytesText(total) + ", more than the " + bytesText(limit) +
                             " this host allows; the largest is '" + big.name + "' " + shapeStr(big.shape) + " (" +
                             bytesText(static_cast<double>(big.bytes())) + ")",
                         {.tensor = big.name});
}

class CpuBackend final : public IBackend
{
public:
    explicit CpuBackend(CpuBackendOptions options) : m_options(options)
    {
        m_info.capabilities = {.functional = true,
                               .timing = false,
                               .measured = true,
                               .deviceKinds = {"any"},
                               .accumulation = BackendCapabilities::Accumulation::Float32};
        m_info.summary = "compiles the plan to native code: Conv/MatMul/Gemm and their fused epilogues on oneDNN, "
                         "element-wise chains by LLVM's ORC JIT for the host (" +
                         cpu::JitCache::hostCpu() +
                         "), over whole tensors or a tiled task's tiles; every other op on the reference kernels; "
                         "concurrent tasks on a thread pool";
    }

    const BackendInfo &info() const override { return m_info; }

    bool supports(const Graph &g, const Node &n) const override
    {
        if (n.opaque)
            return false;
        try {
            return cpu::makeReferenceOp(g, indexOf(g, n)).isOk();
        } catch (const std::exception &) {
            return false;
        }
    }

    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        return compileCancellable(g, plan, nullptr);
    }

    Expected<std::unique_ptr<CompiledPlan>> compileCancellable(const Graph &g, const ExecutionPlan &plan,
                                                               const std::atomic<bool> *cancel, int threadCap = 0)
    {
        try {
            std::lock_guard lock(m_compileMutex);
            return compilePlan(g, plan, cancel, threadCap);
        } catch (const std::bad_alloc &) {
            return Status::error(ErrorCode::Internal, "out of host memory while compiling the plan");
        } catch (const std::exception &e) {
            return Status::error(ErrorCode::Internal, std::string("compiling the plan failed: ") + e.what());
        }
    }

    // Options: "threads" (a positive count) caps this plan's pool of workers
    // and its kernels' OpenMP teams, as CpuBackendOptions::threads does for
    // the backend (tessera-cli run --threads).
    Expected<std::unique_ptr<CompiledPlan>> compileFor(const Graph &g, const ExecutionPlan &plan,
                                                       const CompileContext &context) override
    {
        int threads = 0;
        if (auto it = context.options.find("threads"); it != context.options.end()) {
            char *end = nullptr;
            const long v = std::strtol(it->second.c_str(), &end, 10);
            if (it->second.empty() || *end != '\0' || v < 1 || v > 1024)
                return Status::invalid("threads must be a count from 1 to 1024, got '" + it->second + "'");
            threads = static_cast<int>(v);
        }
        auto compiled = compileCancellable(g, plan, context.cancel, threads);
        if (compiled && threads > 0)
            static_cast<CpuPlan &>(**compiled).threads = threads;
        if (compiled && context.device && context.device->kind == DeviceKind::Cpu)
            static_cast<CpuPlan &>(**compiled).peakFlops = context.device->peakFlops(DType::Float32);
        return compiled;
    }

    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override
    {
        TS_TRY(checkCompiledBy(compiled, m_info));
        try {
            return runPlan(static_cast<const CpuPlan &>(compiled), inputs, observer);
        } catch (const std::bad_alloc &) {
            return Status::error(ErrorCode::Internal, "out of host memory while running the plan");
        } catch (const std::exception &e) {
            return Status::error(ErrorCode::Internal, std::string("running the plan failed: ") + e.what());
        }
    }

private:
    static NodeId indexOf(const Graph &g, const Node &n)
    {
        for (std::size_t i = 0; i < g.nodeCount(); ++i)
            if (&g.node(static_cast<NodeId>(i)) == &n)
                return static_cast<NodeId>(i);
        return 0;
    }

    int threads() const
    {
        if (m_options.threads > 0)
            return m_options.threads;
        return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    }

    // `cancel` (may be null) is looked at while verifying, before each
    // constant is loaded, and before each task and each node's op is made (a
    // oneDNN primitive, an LLVM JIT compile): set, the compile stops with
    // ErrorCode::Cancelled, and the caches keep what was made so far.
    Expected<std::unique_ptr<CompiledPlan>> compilePlan(const Graph &g, const ExecutionPlan &plan,
                                                        const std::atomic<bool> *cancel, int threadCap)
    {
        const auto t0 = Clock::now();
        const int compiledBefore = m_jit.compiled(), hitsBefore = m_jit.hits();
        const int preparedBefore = m_dnnlConstants.prepared(), constHitsBefore = m_dnnlConstants.hits();
        const auto cancelled = [cancel] {
            return cancel && cancel->load(std::memory_order_relaxed)
                       ? Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled")
                       : Status::ok();
        };
        Status verified = verifyPlan(plan, g, nullptr, cancel);
        if (verified.code() == ErrorCode::Cancelled)
            return verified;
        if (!verified)
            return verified.prefix("the cpu backend refuses an invalid plan");
        auto out = std::make_unique<CpuPlan>();
        out->graph = g;
        const Graph &graph = out->graph;

        // S1: constants, loaded and checked once.
        std::map<std::shared_ptr<const TensorData>, std::shared_ptr<const TensorData>> loaded;
        out->constants.data.resize(graph.tensorCount());
        for (std::size_t i = 0; i < graph.tensorCount(); ++i) {
            const Tensor &tensor = graph.tensor(static_cast<TensorId>(i));
            if (!tensor.isConstant())
                continue;
            TS_TRY(cancelled());
            // External data read by an earlier compile (the same immutable
            // TensorData: the same graph, or an override's plan of it) is reused.
            Expected<std::shared_ptr<const TensorData>> data = std::shared_ptr<const TensorData>();
            if (auto hit = m_loaded.find(tensor.data); hit != m_loaded.end())
                data = hit->second;
            else
                data = loadTensorData(tensor.data);
            if (!data)
                return data.status().at({.tensor = tensor.name});
            if (*data != tensor.data)
                loaded.emplace(tensor.data, *data);
            if (static_cast<std::int64_t>((*data)->view().size()) != tensor.bytes())
                return Status::invalid("data of '" + tensor.name + "' holds " + std::to_string((*data)->view().size()) +
                                           " bytes, its type needs " + std::to_string(tensor.bytes()),
                                       {.tensor = tensor.name});
            out->constants.data[i] = std::move(*data);
        }

        m_loaded = std::move(loaded); // only the last compile's: a bounded cache
        const double constantsMs = nsSince(t0) / 1e6;
        // The OpenMP team of the whole-tensor kernels: one thread in a plan
        // with tiled tasks (ompteam.h). oneDNN sizes a primitive by it when
        // the primitive is made, here and when the layouts remake it.
        bool hasTiledTasks = false;
        std::vector<bool> tiled(plan.tasks.size(), false); // per task index
        for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
            auto isTiled = cpu::taskIsTiled(graph, plan, plan.tasks[i]);
            if (!isTiled)
                return isTiled.status();
            tiled[i] = *isTiled;
            hasTiledTasks = hasTiledTasks || *isTiled;
        }
        // A cap on threads (the plan's, else the backend's) caps the team too.
        out->teamThreads = cpu::wholeKernelThreads(hasTiledTasks);
        if (const int cap = threadCap > 0 ? threadCap : m_options.threads; cap > 0)
            out->teamThreads = std::min(out->teamThreads, cap);
        const cpu::TeamSize teamSize(out->teamThreads);
        // S2: ops per task.
        cpu::LowerStats stats;
        for (const Task &t : plan.tasks) {
            TS_TRY(cancelled());
            TaskProgram p;
            p.id = t.id;
            p.work = taskWork(graph, plan, t);
            if (t.kind == TaskKind::Compute) {
                cpu::TaskScratch scratch;
                auto ops = cpu::lowerTask(graph, plan, t, out->constants, &m_jit, &m_dnnlConstants, stats, cancel,
                                          m_options.fuseIntermediates ? &scratch : nullptr);
                if (!ops)
                    return ops.status();
                p.ops = std::move(*ops);
                if (scratch.bytes > 0)
                    p.parts = std::move(scratch.parts);
                p.scratchBytes = scratch.bytes;
            }
            out->tasks.push_back(std::move(p));
        }
        const double lowerMs = nsSince(t0) / 1e6 - constantsMs;
        out->written.assign(graph.tensorCount(), false);
        for (const TaskProgram &p : out->tasks)
            for (const CpuOpPtr &op : p.ops)
                for (TensorId w : op->writes)
                    out->written[static_cast<std::size_t>(w)] = true;
        for (TensorId o : graph.outputs)
            if (!out->written[static_cast<std::size_t>(o)] && !graph.tensor(o).isConstant() &&
                std::find(graph.inputs.begin(), graph.inputs.end(), o) == graph.inputs.end())
                return Status::error(ErrorCode::InvalidInput,
                                     "graph output '" + graph.tensor(o).name + "' is computed by no task of the plan",
                                     {.tensor = graph.tensor(o).name});

        // S3b: activation layouts (blocked between the ops that take it).
        std::vector<cpu::CpuOp *> allOps;
        for (TaskProgram &p : out->tasks)
            for (CpuOpPtr &op : p.ops)
                allOps.push_back(op.get());
        auto layouts =
            cpu::assignLayouts(graph, allOps, cpu::dnnlBlockSize(), cpu::blockedLayoutsEnabled(), &m_jit, cancel);
        if (!layouts)
            return layouts.status();
        out->bytes = std::move(layouts->bytes);
        // Plain readers of blocked tensors get their plain copies.
        std::size_t at = 0;
        for (TaskProgram &p : out->tasks)
            for (CpuOpPtr &op : p.ops) {
                std::vector<TensorId> &views = layouts->plainViews[at];
                if (!views.empty())
                    op = cpu::withPlainViews(std::move(op), graph, std::move(views), layouts->block);
                allOps[at++] = op.get();
            }

        // S3: dependencies (the plan's, plus the overlapping accesses'), after
        // the layouts: a blocked tensor is accessed whole.
        const auto depsStart = Clock::now();
        TS_TRY(addDependencies(*out, plan, tiled, layouts->blocked));
        const double depsMs = nsSince(depsStart) / 1e6;
        std::size_t dependencies = 0;
        for (const TaskProgram &p : out->tasks)
            dependencies += p.deps.size();

        // Width: most compute tasks at one dependency depth (threads worth starting).
        std::vector<int> depth(out->tasks.size(), 0);
        std::map<int, int> atDepth;
        for (std::size_t i = 0; i < out->tasks.size(); ++i) {
            for (int d : out->tasks[i].deps)
                depth[i] = std::max(depth[i], depth[static_cast<std::size_t>(d)] + 1);
            if (!out->tasks[i].ops.empty())
                out->width = std::max(out->width, ++atDepth[depth[i]]);
        }

        const bool shared = placeArena(*out, m_options.maxTasksSharingArena);
        TS_TRY(checkMemory(*out));

        std::map<std::string, double> &m = out->compileMetrics;
        // Fused intermediates no task writes whole: no arena storage at all.
        std::set<TensorId> fused;
        std::int64_t scratch = 0;
        for (const TaskProgram &p : out->tasks) {
            scratch = std::max(scratch, p.scratchBytes);
            for (const cpu::TaskScratch::Part &part : p.parts)
                for (const auto &[t, offset] : part.offset)
                    if (out->offset[static_cast<std::size_t>(t)] < 0)
                        fused.insert(t);
        }
        double fusedBytes = 0;
        for (TensorId t : fused)
            fusedBytes += static_cast<double>(graph.tensor(t).bytes());
        m["fused_intermediates/tensors"] = static_cast<double>(fused.size());
        m["fused_intermediates/tensor_bytes"] = fusedBytes;
        m["fused_intermediates/scratch_bytes"] = static_cast<double>(scratch);
        for (TaskProgram &p : out->tasks) {
            for (const CpuOpPtr &op : p.ops) {
                m["ops/" + std::string(cpu::engineName(op->engine))] += 1;
                // Every op left on a reference kernel is reported, with the
                // reason when some engine compiles its type.
                if (op->engine == Engine::Reference)
                    m["fallback/" + op->label + (op->declined.empty() ? "" : ": " + op->declined)] += 1;
                // And every oneDNN op on oneDNN's own reference code: a slow
                // path (the run report's generic "slow_path/<op>: <why>").
                if (op->engine == Engine::OneDnn && cpu::isReferenceImpl(op->impl))
                    m["slow_path/" + op->label + ": on oneDNN's reference code"] += 1;
                p.summary += (p.summary.empty() ? "" : ", ") + std::string(cpu::engineName(op->engine)) +
                             (op->impl.empty() ? "" : "[" + op->impl + "]") + ":" + op->label;
            }
        }
        int reorders = 0;
        for (const cpu::CpuOp *op : allOps)
            reorders += op->reorders();
        m["reorders"] = reorders; // layout reorders a run executes (oneDNN ops' own)
        m["omp_team_threads"] = out->teamThreads;
        m["arena_shared"] = shared ? 1 : 0; // intermediates may share bytes (placeArena)
        m["blocked_tensors"] = layouts->blockedTensors;
        m["jit_kernels_compiled"] = m_jit.compiled() - compiledBefore;
        m["jit_cache_hits"] = m_jit.hits() - hitsBefore;
        m["dnnl_constants_prepared"] = m_dnnlConstants.prepared() - preparedBefore;
        m["dnnl_constants_cached"] = m_dnnlConstants.hits() - constHitsBefore;
        if (!stats.jitUnavailable.empty())
            m["jit_unavailable"] = 1; // element-wise chains ran on the reference kernels
        m_dnnlConstants.keepOnlyLastCompile();
        m["compile_ms"] = nsSince(t0) / 1e6;
        m["compile_ms/constants"] = constantsMs; // verify, copy the graph, load constants
        m["compile_ms/lower"] = lowerMs;
        m["compile_ms/dependencies"] = depsMs;
        m["task_dependencies"] = static_cast<double>(dependencies); // edges of the task graph run()
        return std::unique_ptr<CompiledPlan>(std::move(out));
    }

    Expected<RunResult> runPlan(const CpuPlan &p, const std::vector<HostTensor> &inputs,
                                const RunObserver &observer) const
    {
        const Graph &g = p.graph;
        RunResult result;
        std::vector<std::uint8_t *> tensors(g.tensorCount(), nullptr);
        // Inputs (checked as the reference backend does), constants, outputs, arena.
        std::unordered_set<std::string> known;
        for (TensorId id : g.inputs) {
            const Tensor &t = g.tensor(id);
            known.insert(t.name);
            auto it = std::find_if(inputs.begin(), inputs.end(), [&](const HostTensor &h) { return h.name == t.name; });
            const std::string want = std::string(dtypeName(t.dtype)) + " " + shapeStr(t.shape);
            if (it == inputs.end())
                return Status::invalid("missing input '" + t.name + "' (" + want + ")", {.tensor = t.name});
            if (it->dtype != t.dtype || it->shape != t.shape ||
                static_cast<std::int64_t>(it->bytes.size()) != t.bytes())
                return Status::invalid("input '" + t.name + "' is " + std::string(dtypeName(it->dtype)) + " " +
                                           shapeStr(it->shape) + " (" + std::to_string(it->bytes.size()) +
                                           " bytes), expected " + want,
                                       {.tensor = t.name});
            tensors[static_cast<std::size_t>(id)] = const_cast<std::uint8_t *>(it->bytes.data());
        }
        for (const HostTensor &h : inputs)
            if (!known.count(h.name))
                return Status::invalid("unknown input '" + h.name + "'", {.tensor = h.name});
        for (std::size_t t = 0; t < g.tensorCount(); ++t)
            if (p.constants.data[t])
                tensors[t] = const_cast<std::uint8_t *>(p.constants.data[t]->view().data());
        for (TensorId id : g.outputs) {
            const Tensor &t = g.tensor(id);
            result.outputs.push_back({t.name, t.dtype, t.shape, {}});
            result.outputs.back().bytes.resize(static_cast<std::size_t>(std::max<std::int64_t>(t.bytes(), 0)));
        }
        for (std::size_t i = 0; i < g.outputs.size(); ++i) {
            const auto o = static_cast<std::size_t>(g.outputs[i]);
            if (p.written[o])
                tensors[o] = result.outputs[i].bytes.data();
        }
        ArenaPtr arena;
        {
            std::lock_guard lock(p.arenaMutex);
            arena = std::move(p.spareArena);
        }
        if (!arena)
            arena = ArenaPtr(new (std::align_val_t(kAlign))
                                 std::uint8_t[static_cast<std::size_t>(std::max<std::int64_t>(p.arenaBytes, kAlign))]);
        struct ReturnArena {
            const CpuPlan &plan;
            ArenaPtr &arena;
            ~ReturnArena()
            {
                std::lock_guard lock(plan.arenaMutex);
                plan.spareArena = std::move(arena);
            }
        } returnArena{p, arena};
        for (std::size_t t = 0; t < g.tensorCount(); ++t)
            if (p.offset[t] >= 0)
                tensors[t] = arena.get() + p.offset[t];

        // The task graph on a pool: a task starts when its dependencies finished.
        const int workers = std::max(1, std::min(p.threads > 0 ? p.threads : threads(), p.width));
        const std::size_t n = p.tasks.size();
        std::mutex mutex;
        std::condition_variable cv;
        std::deque<int> ready;
        std::vector<int> pending(n);
        for (std::size_t i = 0; i < n; ++i) {
            pending[i] = static_cast<int>(p.tasks[i].deps.size());
            if (pending[i] == 0)
                ready.push_back(static_cast<int>(i));
        }
        std::size_t finished = 0;
        Status failure;
        bool stop = false;
        std::map<std::string, double> engineNs;
        result.timeline.resize(n);
        cpu::RunCounting counters(m_counters); // the run's cache misses, instructions, page faults
        const auto t0 = Clock::now();

        auto worker = [&](int lane) {
            const cpu::TeamSize teamSize(p.teamThreads); // as the kernels were made (ompteam.h)
            std::map<std::string, double> myNs;
            for (;;) {
                int i = -1;
                {
                    std::unique_lock lock(mutex);
                    cv.wait(lock, [&] { return stop || finished == n || !ready.empty(); });
                    if (stop || finished == n)
                        break;
                    i = ready.front();
                    ready.pop_front();
                }
                const TaskProgram &task = p.tasks[static_cast<std::size_t>(i)];
                Status st;
                if (observer.cancel && observer.cancel->load(std::memory_order_relaxed))
                    st = Status::error(ErrorCode::Cancelled, "run cancelled before task " + std::to_string(task.id));
                const double start = nsSince(t0);
                std::uint8_t *const *table = tensors.data();
                std::size_t opIndex = 0, part = 0;
                for (const CpuOpPtr &op : task.ops) {
                    // A part's fused intermediates from its first op on.
                    if (part < task.parts.size() && task.parts[part].firstOp == opIndex) {
                        while (part + 1 < task.parts.size() && task.parts[part + 1].firstOp == opIndex)
                            ++part; // parts without ops
                        const cpu::TaskScratch::Part &next = task.parts[part++];
                        table = next.offset.empty() ? tensors.data() : localTable(tensors, task, next);
                    }
                    ++opIndex;
                    // Checked before every op too: a fused task may hold many.
                    if (st && observer.cancel && observer.cancel->load(std::memory_order_relaxed))
                        st = Status::error(ErrorCode::Cancelled, "run cancelled in task " + std::to_string(task.id));
                    if (!st)
                        break;
                    const auto s0 = Clock::now();
                    st = op->run(table);
                    myNs[std::string(cpu::engineName(op->engine))] += nsSince(s0);
                }
                const double end = nsSince(t0);
                std::unique_lock lock(mutex);
                result.timeline[static_cast<std::size_t>(i)] = {task.id, start, end, lane};
                if (!st) {
                    if (failure.isOk())
                        failure = st;
                    stop = true;
                    cv.notify_all();
                    break;
                }
                ++finished;
                for (int d : task.dependents)
                    if (--pending[static_cast<std::size_t>(d)] == 0)
                        ready.push_back(d);
                // The task's measured span streams as it finishes (the
                // workbench's per-kernel table fills while the run goes).
                if (observer.timelinesRecorded)
                    observer.timelinesRecorded(RunIncrement{{result.timeline[static_cast<std::size_t>(i)]}, {}, {}});
                if (observer.taskFinished)
                    observer.taskFinished(task.id, static_cast<double>(finished) / static_cast<double>(n));
                cv.notify_all();
            }
            std::lock_guard lock(mutex);
            for (const auto &[k, v] : myNs)
                engineNs[k] += v;
        };
        m_pool.run(workers, worker);
        result.latencyMs = nsSince(t0) / 1e6;
        if (!failure)
            return failure;
        if (finished != n)
            return Status::error(ErrorCode::Internal, "the task graph stalled after " + std::to_string(finished) +
                                                          " of " + std::to_string(n) + " tasks");

        // Outputs that are constants or inputs are copied.
        for (std::size_t i = 0; i < g.outputs.size(); ++i) {
            const auto o = static_cast<std::size_t>(g.outputs[i]);
            if (!p.written[o] && tensors[o] && !result.outputs[i].bytes.empty())
                std::copy(tensors[o], tensors[o] + result.outputs[i].bytes.size(), result.outputs[i].bytes.begin());
        }
        result.metrics = p.compileMetrics;
        result.metrics["total_ms"] = result.latencyMs;
        result.metrics["tasks"] = static_cast<double>(n);
        result.metrics["threads"] = workers;
        result.metrics["arena_bytes"] = static_cast<double>(p.arenaBytes);
        // The arena and every worker's scratch of fused intermediates (at most
        // the largest task's each): the run's buffers besides its outputs.
        std::int64_t scratch = 0;
        for (const TaskProgram &t : p.tasks)
            scratch = std::max(scratch, t.scratchBytes);
        result.metrics["arena_and_scratch_bytes"] = static_cast<double>(p.arenaBytes + workers * scratch);
        counters.report(result.metrics);
        for (const auto &[k, ns] : engineNs)
            result.metrics["op_ms/" + k] = ns / 1e6;
        // Per kernel: which engine runs each of its ops, its wall time and
        // achieved rates (FLOPs and bytes of its regions over its wall time:
        // GFLOP/s and GB/s are both per ns).
        double flops = 0, bytes = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const TaskProgram &t = p.tasks[i];
            flops += t.work.flops;
            bytes += t.work.bytesRead + t.work.bytesWritten;
            if (t.ops.empty())
                continue;
            const std::string key = "kernel/" + std::to_string(t.id) + " " + t.summary;
            const double ns = result.timeline[i].endNs - result.timeline[i].startNs;
            result.metrics[key + "/wall_ms"] = ns / 1e6;
            if (ns > 0 && t.work.flops > 0)
                result.metrics[key + "/gflops"] = t.work.flops / ns;
            if (ns > 0)
                result.metrics[key + "/gbps"] = (t.work.bytesRead + t.work.bytesWritten) / ns;
        }
        // The whole run: FLOPs, bytes, achieved rates and the share of the
        // host preset's f32 peak (when the plan was compiled for it).
        const double runNs = result.latencyMs * 1e6;
        result.metrics["flops"] = flops;
        result.metrics["moved_bytes"] = bytes;
        if (runNs > 0) {
            result.metrics["achieved_gflops"] = flops / runNs;
            result.metrics["achieved_gbps"] = bytes / runNs;
            if (p.peakFlops > 0)
                result.metrics["peak_share"] = flops / runNs * 1e9 / p.peakFlops;
        }
        return result;
    }

    CpuBackendOptions m_options;
    mutable cpu::WorkerPool m_pool;      // the run's workers, kept across runs
    mutable cpu::CounterSlot m_counters; // the runs' event counters, opened once (perfcounters.h)
    cpu::JitCache m_jit;
    cpu::DnnlConstantCache m_dnnlConstants;
    // External constants read by the last compile, by their (immutable) source.
    std::map<std::shared_ptr<const TensorData>, std::shared_ptr<const TensorData>> m_loaded;
    std::mutex m_compileMutex;
    BackendInfo m_info{kName, "CPU (oneDNN + LLVM JIT)", {}, true, {}, {}};
};

} // namespace

std::unique_ptr<IBackend> createCpuBackend(CpuBackendOptions options)
{
    return std::make_unique<CpuBackend>(options);
}

void registerCpuBackend(BackendRegistry &registry)
{
    registry.add(createCpuBackend());
}

} // namespace tessera
