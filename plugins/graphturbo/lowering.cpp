#include "plugins/graphturbo/lowering.h"

#include "core/cost/costmodel.h"
#include "core/plan/tiles.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/binding.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tessera::graphturbo {

namespace {

// One cluster's share of an instance in the plan.
struct Part {
    int cluster = 0;
    ops::Region tile; // empty: the whole output
    TaskId task = -1;
    int level = 0; // where its output lives
    std::vector<BufferId> buffers;
};

class Lowerer
{
public:
    Lowerer(Context &ctx, const std::vector<SubGraph> &sgs, const InstanceGraph &ig, const Ordering &o)
        : m_ctx(ctx), m_g(ctx.graph), m_dev(ctx.device), m_sgs(sgs), m_ig(ig), m_order(o.order)
    {}

    Expected<Lowered> run()
    {
        Lowered out;
        OrderMemory mem = evaluateOrder(m_ctx, m_sgs, m_ig, m_order);
        const std::vector<int> &itemOfOutput = mem.itemOfOutput;
        const std::vector<MemItem> &items = mem.items;
        // The final allocation asks for every spill victim (§4.3's choice is preferred).
        std::map<int, int> spillsAt;
        out.memory =
            assignLevels(items, static_cast<int>(m_order.size()), m_ctx.lbPerCore, m_ctx.gbBytes,
                         [&](const std::vector<int> &live, std::size_t preferred, int at, int level) {
                             return chooseVictim(items, live, preferred, at, level, spillsAt[at * 4 + level]++);
                         });
        ExecutionPlan &plan = out.plan;
        plan.algorithm = "graphturbo";
        plan.device = m_dev.id;
        plan.graphName = m_g.name;
        for (std::size_t s = 0; s < m_sgs.size(); ++s) {
            Kernel k;
            k.nodes = m_sgs[s].nodes;
            m_kernels.push_back(std::move(k));
        }
        for (std::size_t s = 0; s < m_sgs.size(); ++s)
            plan.addKernel("sg" + std::to_string(s) + ":" + subgraphLabel(m_g, m_sgs[s]), m_sgs[s].nodes, "graphturbo");
        // Graph inputs live in DDR.
        std::map<TensorId, BufferId> inputBuffer;
        for (TensorId t : m_g.inputs)
            inputBuffer[t] = plan.addBuffer({0, t, levelName(2), scopeOf(2, 0, 0), {}, m_g.tensor(t).bytes(), -1});

        // S0 (§4.4): weights promoted DDR → GB once per sub-graph and cluster
        // while they fit the GB weight budget beside the weights of the
        // sub-graphs whose instances interleave with it; otherwise every
        // instance reads them itself.
        decideWeightResidency();
        std::map<std::pair<int, int>, std::pair<TaskId, BufferId>> promoted; // (sub-graph, cluster) -> copy, buffer
        // Every instance runs as one part per cluster its sub-graph is spread over.
        std::vector<std::vector<Part>> parts(m_ig.instances.size());
        std::vector<int> outLevel(m_ig.instances.size(), 0);
        for (std::size_t p = 0; p < m_order.size(); ++p) {
            const int id = m_order[p];
            const Instance &inst = m_ig.instances[static_cast<std::size_t>(id)];
            const SubGraph &sg = m_sgs[static_cast<std::size_t>(inst.subgraph)];
            const int cores = boundCores(sg.binding);
            const int workItem = itemOfOutput[static_cast<std::size_t>(id)] - 1;
            const int workLevel = out.memory.level[static_cast<std::size_t>(workItem)];
            const int level = out.memory.level[static_cast<std::size_t>(itemOfOutput[static_cast<std::size_t>(id)])];
            outLevel[static_cast<std::size_t>(id)] = level;
            const TensorId outT = outputOf(m_g, sg);
            const bool tiled = sg.splitFactor > 1 || sg.clusterParts > 1;
            for (int c = 0; c < sg.clusterParts; ++c) {
                Part part;
                part.cluster = c;
                if (tiled) {
                    part.tile = inst.tile;
                    const std::int64_t share = m_g.tensor(outT).shape.front() / sg.clusterParts;
                    part.tile.front().begin += c * share;
                    part.tile.front().end += c * share;
                }
                Task task;
                task.kind = TaskKind::Compute;
                task.kernel = inst.subgraph;
                if (tiled)
                    task.tiles.push_back({sg.exit, 0, part.tile});
                task.binding = {c, 0, cores, unitOf(sg), -1};
                task.stage = inst.subgraph;
                const std::string name = instName(inst) + (sg.clusterParts > 1 ? "@c" + std::to_string(c) : "");
                std::set<TaskId> deps;
                if (m_resident[static_cast<std::size_t>(inst.subgraph)]) {
                    auto it = promoted.find({inst.subgraph, c});
                    if (it == promoted.end()) {
                        const std::int64_t wb = m_weightBytes[static_cast<std::size_t>(inst.subgraph)];
                        const BufferId wbuf =
                            plan.addBuffer({0, kInvalidId, levelName(1), scopeOf(1, c, 0), {}, wb, -1});
                        Task promote;
                        promote.kind = TaskKind::Copy;
                        promote.writes = {wbuf};
                        promote.binding = {c, 0, cores, -1, -1};
                        promote.stage = inst.subgraph;
                        promote.cost = m_ctx.cost.transferCost(wb, levelName(2), levelName(1));
                        promote.label = "promote weights of sg" + std::to_string(inst.subgraph) + " " + levelName(2) +
                                        "→" + levelName(1) + " on cluster " + std::to_string(c);
                        it = promoted
                                 .emplace(std::make_pair(inst.subgraph, c),
                                          std::make_pair(plan.addTask(std::move(promote)), wbuf))
                                 .first;
                        ++out.promotions;
                    }
                    deps.insert(it->second.first);
                    task.reads.push_back(it->second.second);
                }
                auto regions = taskRegions(m_g, m_kernels[static_cast<std::size_t>(inst.subgraph)], task.tiles);
                if (!regions)
                    return regions.status();

                // S1: producer slices this part reads, joined by a concat per producer sub-graph with several.
                std::map<int, std::vector<std::pair<const Part *, std::int64_t>>> bySubgraph;
                for (int pi : inst.producers) {
                    const Instance &pinst = m_ig.instances[static_cast<std::size_t>(pi)];
                    const SubGraph &psg = m_sgs[static_cast<std::size_t>(pinst.subgraph)];
                    const TensorId pt = outputOf(m_g, psg);
                    for (const Part &q : parts[static_cast<std::size_t>(pi)]) {
                        auto r = regions->read.find(pt);
                        if (r == regions->read.end() || regionEmpty(r->second)) {
                            if (q.tile.empty()) // reads another output of an unsplit producer
                                bySubgraph[pinst.subgraph].push_back({&q, 0});
                            continue;
                        }
                        if (!q.tile.empty() && !regionsOverlap(q.tile, r->second))
                            continue;
                        const ops::Region needed = q.tile.empty() ? r->second : regionIntersect(q.tile, r->second);
                        if (!regionEmpty(needed))
                            bySubgraph[pinst.subgraph].push_back({&q, regionBytes(m_g.tensor(pt), needed)});
                    }
                }
                for (const auto &[psg, srcs] : bySubgraph) {
                    std::vector<TaskId> srcDeps;
                    std::vector<BufferId> srcBufs;
                    // S2: slices kept in GB/DDR (or on another cluster) are promoted into LB, one copy per
                    // level (Fig. 9 left).
                    std::map<int, std::tuple<std::vector<BufferId>, std::vector<TaskId>, std::int64_t>> spilled;
                    for (const auto &[q, bytes] : srcs) {
                        srcBufs.insert(srcBufs.end(), q->buffers.begin(), q->buffers.end());
                        const int pl = q->cluster == c ? q->level : std::max(q->level, 1);
                        if (pl == 0) {
                            srcDeps.push_back(q->task);
                            continue;
                        }
                        auto &[cb, cd, total] = spilled[pl];
                        cb.insert(cb.end(), q->buffers.begin(), q->buffers.end());
                        cd.push_back(q->task);
                        total += bytes;
                    }
                    for (const auto &[pl, what] : spilled) {
                        const auto &[cb, cd, total] = what;
                        srcDeps.push_back(addCopy(plan, cb, cd, total, pl,
                                                  "copy " + std::to_string(cd.size()) + " slices of sg" +
                                                      std::to_string(psg) + " " + levelName(pl) + "→" + levelName(0) +
                                                      " for " + name,
                                                  {c, 0, cores, -1, -1}, inst.subgraph));
                        ++out.copies;
                    }
                    task.reads.insert(task.reads.end(), srcBufs.begin(), srcBufs.end());
                    if (srcs.size() >= 2) {
                        Task concat;
                        concat.kind = TaskKind::Concat;
                        concat.deps = srcDeps;
                        concat.reads = srcBufs;
                        concat.binding = {c, 0, cores, -1, -1};
                        concat.stage = inst.subgraph;
                        concat.cost = m_ctx.cost.transferCost(0, levelName(0), levelName(0));
                        concat.label = "concat " + std::to_string(srcs.size()) + " slices of sg" + std::to_string(psg) +
                                       " for " + name;
                        deps.insert(plan.addTask(std::move(concat)));
                        ++out.concats;
                    } else {
                        deps.insert(srcDeps.begin(), srcDeps.end());
                    }
                }
                // Graph inputs this part reads: copied DDR → LB.
                for (const auto &[t, region] : regions->read) {
                    if (m_g.tensor(t).kind != Tensor::Kind::Input || regionEmpty(region) || !inputBuffer.count(t))
                        continue;
                    const BufferId b = inputBuffer[t];
                    deps.insert(addCopy(plan, {b}, {}, regionBytes(m_g.tensor(t), region), 2,
                                        "copy input " + m_g.tensor(t).name + " → " + levelName(0) + " for " + name,
                                        {c, 0, cores, -1, -1}, inst.subgraph));
                    ++out.copies;
                    task.reads.push_back(b);
                }
                task.deps.assign(deps.begin(), deps.end());

                // S3: the output slice and the working set at their levels, in this part's cluster.
                part.level = level;
                if (outT != kInvalidId)
                    part.buffers = addBuffers(plan, outT, part.tile, inst.outputBytes, level, cores, c);
                task.writes = part.buffers;
                const std::int64_t work = items[static_cast<std::size_t>(workItem)].bytes;
                if (work > 0) {
                    auto ws = addBuffers(plan, kInvalidId, {}, work, workLevel, cores, c);
                    task.writes.insert(task.writes.end(), ws.begin(), ws.end());
                }
                // Instances of a sub-graph are alike: one estimate per sub-graph and levels.
                auto cost = m_costs.find({inst.subgraph, level, workLevel});
                if (cost == m_costs.end()) {
                    KernelPlacement placement;
                    placement.cores = cores;
                    placement.ioLevel = levelName(level);
                    placement.intermediateLevel = levelName(workLevel);
                    placement.workFraction = 1.0 / double(sg.splitFactor * sg.clusterParts);
                    placement.includeWeights = !m_resident[static_cast<std::size_t>(inst.subgraph)];
                    cost = m_costs
                               .emplace(std::make_tuple(inst.subgraph, level, workLevel),
                                        m_ctx.cost.kernelCost(m_g, sg.nodes, placement))
                               .first;
                }
                task.cost = cost->second;
                task.label = name + " " + shapeOf(inst) + " " + levelName(level) + " bind " + bindingStr(sg.binding);
                part.task = plan.addTask(std::move(task));
                parts[static_cast<std::size_t>(id)].push_back(std::move(part));
            }
        }
        auto &step = m_ctx.trace.add("S6: lower to plan (§3.4, §3.5)", std::to_string(plan.tasks.size()) + " tasks",
                                     std::to_string(plan.kernels.size()) + " kernels, " + std::to_string(out.copies) +
                                         " copies, " + std::to_string(out.concats) + " concats",
                                     "instances in order, bound to cores by plain binding, buffers at their levels");
        step.numbers = {{"tasks", double(plan.tasks.size())},
                        {"buffers", double(plan.buffers.size())},
                        {"lb_share", out.memory.lbShare()},
                        {"spills", double(out.memory.spills.size())}};
        return out;
    }

private:
    // Bytes of constant inputs per sub-graph, and which keep their weights in GB.
    void decideWeightResidency()
    {
        const std::size_t n = m_sgs.size();
        m_weightBytes.assign(n, 0);
        m_resident.assign(n, false);
        for (std::size_t s = 0; s < n; ++s) {
            std::set<TensorId> seen;
            for (NodeId node : m_sgs[s].nodes)
                for (TensorId t : m_g.node(node).inputs)
                    if (t != kInvalidId && m_g.tensor(t).isConstant() && seen.insert(t).second)
                        m_weightBytes[s] += m_g.tensor(t).bytes();
        }
        std::vector<int> first(n, -1), last(n, -1);
        for (std::size_t p = 0; p < m_order.size(); ++p) {
            const auto s = static_cast<std::size_t>(m_ig.instances[static_cast<std::size_t>(m_order[p])].subgraph);
            if (first[s] < 0)
                first[s] = static_cast<int>(p);
            last[s] = static_cast<int>(p);
        }
        std::vector<std::size_t> byFirst(n);
        for (std::size_t s = 0; s < n; ++s)
            byFirst[s] = s;
        std::sort(byFirst.begin(), byFirst.end(), [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });
        std::vector<std::size_t> kept;
        for (std::size_t s : byFirst) {
            if (m_weightBytes[s] == 0 || m_weightBytes[s] > m_ctx.weightBudget || first[s] < 0)
                continue;
            // The most weight bytes already kept at any position of s's interval.
            std::int64_t worst = 0;
            for (int p = first[s]; p <= last[s]; ++p) {
                std::int64_t at = 0;
                for (std::size_t k : kept)
                    if (first[k] <= p && p <= last[k])
                        at += m_weightBytes[k];
                worst = std::max(worst, at);
            }
            if (worst + m_weightBytes[s] <= m_ctx.weightBudget) {
                m_resident[s] = true;
                kept.push_back(s);
            }
        }
    }

    // Item i is the working set (even) or the output (odd) of the instance at position items[i].start.
    std::string itemName(const std::vector<MemItem> &items, int i) const
    {
        const Instance &inst = m_ig.instances[static_cast<std::size_t>(
            m_order[static_cast<std::size_t>(items[static_cast<std::size_t>(i)].start)])];
        return instName(inst) + (i % 2 ? ":out" : ":work");
    }

    std::size_t chooseVictim(const std::vector<MemItem> &items, const std::vector<int> &live, std::size_t preferred,
                             int at, int level, int nth)
    {
        // Options: the preferred victim and the longest-lived others (at most eight in all).
        std::vector<std::size_t> idx(live.size());
        for (std::size_t i = 0; i < idx.size(); ++i)
            idx[i] = i;
        auto liveness = [&](std::size_t i) {
            const MemItem &m = items[static_cast<std::size_t>(live[i])];
            return m.end - m.start;
        };
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
            return a == preferred || (b != preferred && liveness(a) > liveness(b));
        });
        idx.resize(std::min<std::size_t>(idx.size(), 8));
        std::vector<DecisionOption> options;
        for (std::size_t i : idx) {
            const MemItem &m = items[static_cast<std::size_t>(live[i])];
            options.push_back({itemName(items, live[i]),
                               itemName(items, live[i]) + " (" + std::to_string(m.bytes) + " B)",
                               double(-(m.end - m.start)),
                               "lives " + std::to_string(m.end - m.start) + " tasks, " + std::to_string(m.bytes) + " B",
                               {}});
        }
        const Instance &running = m_ig.instances[static_cast<std::size_t>(m_order[static_cast<std::size_t>(at)])];
        const SubGraph &sg = m_sgs[static_cast<std::size_t>(running.subgraph)];
        const std::string key =
            decisionKey("graphturbo.spill", {m_g.node(sg.exit).name + "#" + std::to_string(running.index) + "/" +
                                             levelName(level) + "/" + std::to_string(nth)});
        const std::int32_t pick = m_ctx.decisions.decide(key, "graphturbo.spill", options, 0);
        const std::size_t chosen = idx[static_cast<std::size_t>(pick)];
        const MemItem &m = items[static_cast<std::size_t>(live[chosen])];
        auto &step = m_ctx.trace.add("S5: allocate memory (§4.3)", levelName(level) + " full at " + instName(running),
                                     itemName(items, live[chosen]) + " spilled to " + levelName(level + 1),
                                     "the tensor with the longest liveness goes first (" +
                                         std::to_string(m.end - m.start) + " tasks)");
        step.numbers = {{"bytes", double(m.bytes)}, {"liveness", double(m.end - m.start)}};
        step.touched = sg.nodes;
        m_ctx.trace.linkLastDecision(m_ctx.decisions);
        return chosen;
    }

    std::string levelName(int level) const
    {
        const std::size_t n = m_dev.levels.size();
        return m_dev.levels[std::min<std::size_t>(static_cast<std::size_t>(std::max(level, 0)), n - 1)].name;
    }
    const MemoryLevel &levelOf(int level) const { return *m_dev.level(levelName(level)); }
    // The instance of a level a buffer of (cluster, core) lives in.
    std::int32_t scopeOf(int level, int cluster, int core) const
    {
        switch (levelOf(level).scope) {
        case MemoryScope::PerUnit:
        case MemoryScope::PerCore: return cluster * m_dev.topology.coresPerCluster + core;
        case MemoryScope::PerCluster: return cluster;
        case MemoryScope::Shared: return -1;
        }
        return -1;
    }

    std::string instName(const Instance &inst) const
    {
        return "sg" + std::to_string(inst.subgraph) + "#" + std::to_string(inst.index);
    }
    std::string shapeOf(const Instance &inst) const
    {
        std::string s = "[";
        for (std::size_t i = 0; i < inst.tile.size(); ++i)
            s += (i ? "," : "") + std::to_string(inst.tile[i].size());
        return s + "]";
    }

    std::int32_t unitOf(const SubGraph &sg) const
    {
        OpClass cls = OpClass::Other;
        DType dt = DType::Float32;
        for (NodeId n : sg.nodes) {
            const OpClass c = opClassOf(m_g.node(n).opType);
            if (c == OpClass::Gemm || cls == OpClass::Other) {
                cls = c;
                if (!m_g.node(n).outputs.empty() && m_g.node(n).outputs.front() != kInvalidId)
                    dt = m_g.tensor(m_g.node(n).outputs.front()).dtype;
            }
        }
        const ComputeUnit *u = m_dev.bestUnit(cls, dt);
        if (!u)
            return -1;
        return static_cast<std::int32_t>(u - m_dev.units.data());
    }

    std::vector<BufferId> addBuffers(ExecutionPlan &plan, TensorId t, const ops::Region &region, std::int64_t bytes,
                                     int level, int cores, int cluster)
    {
        std::vector<BufferId> ids;
        const MemoryLevel &l = levelOf(level);
        if (l.scope == MemoryScope::PerCore || l.scope == MemoryScope::PerUnit) {
            const std::int64_t share = (bytes + cores - 1) / cores;
            for (int c = 0; c < cores; ++c)
                ids.push_back(plan.addBuffer({0, t, l.name, scopeOf(level, cluster, c), region, share, -1}));
        } else {
            ids.push_back(plan.addBuffer({0, t, l.name, scopeOf(level, cluster, 0), region, bytes, -1}));
        }
        return ids;
    }

    TaskId addCopy(ExecutionPlan &plan, const std::vector<BufferId> &src, const std::vector<TaskId> &deps,
                   std::int64_t bytes, int from, std::string label, Binding binding, int stage)
    {
        Task copy;
        copy.kind = TaskKind::Copy;
        copy.deps = deps;
        copy.reads = src;
        copy.binding = binding;
        copy.stage = stage;
        copy.cost = m_ctx.cost.transferCost(bytes, levelName(from), levelName(0));
        copy.label = std::move(label);
        return plan.addTask(std::move(copy));
    }

    Context &m_ctx;
    const Graph &m_g;
    const Device &m_dev;
    const std::vector<SubGraph> &m_sgs;
    const InstanceGraph &m_ig;
    const std::vector<int> &m_order;
    std::vector<Kernel> m_kernels;                         // node lists of the sub-graphs, for taskRegions
    std::map<std::tuple<int, int, int>, TaskCost> m_costs; // (sub-graph, output level, working level)
    std::vector<std::int64_t> m_weightBytes;               // per sub-graph
    std::vector<bool> m_resident;                          // weights promoted to GB once per cluster
};

} // namespace

Expected<Lowered> lowerToPlan(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                              const Ordering &ordering)
{
    return Lowerer(ctx, subgraphs, ig, ordering).run();
}

} // namespace tessera::graphturbo
