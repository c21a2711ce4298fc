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
        out.memory = assignLevels(
            items, static_cast<int>(m_order.size()), m_ctx.lbPerCore, m_ctx.gbBytes,
            [&](const std::vector<int> &live, std::size_t preferred, int at, int level) {
                return chooseVictim(items, live, preferred, at, level, spillsAt[at * 4 + level]++);
            },
            &mem.weights.reserved);
        m_items = &items;
        m_itemOfOutput = &itemOfOutput;
        m_memory = &out.memory;
        // LB bytes per core the memory plan keeps live at each position (for hoisting).
        m_lbUsed.assign(m_order.size() + 1, 0);
        for (std::size_t i = 0; i < items.size(); ++i)
            if (out.memory.level[i] == 0 && items[i].start >= 0 && items[i].start < static_cast<int>(m_order.size())) {
                m_lbUsed[static_cast<std::size_t>(items[i].start)] += items[i].perCore();
                m_lbUsed[static_cast<std::size_t>(std::min<int>(items[i].end + 1, static_cast<int>(m_order.size())))] -=
                    items[i].perCore();
            }
        for (std::size_t p = 1; p < m_lbUsed.size(); ++p)
            m_lbUsed[p] += m_lbUsed[p - 1];
        m_out = &out;
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
        m_overlap = overlapWithNext(m_ctx, m_sgs, m_ig.instances, m_order);
        m_chain.assign(static_cast<std::size_t>(m_dev.topology.clusters), {});

        // S0 (§4.4, weights.h): weights promoted DDR → GB once per sub-graph and
        // cluster where they fit; otherwise every instance reads them from DDR.
        // In the full variant a sub-graph's promotion is issued when the
        // sub-graph before it starts, so the DMA runs beside that sub-graph's
        // compute.
        decideWeightResidency(std::move(mem.weights));
        m_parts.assign(m_ig.instances.size(), {});
        // §5.1: the in-cluster loop is outermost, each iteration runs every instance on its part of
        // the batch (part k on cluster k % clusters in iteration k / clusters), so one iteration's
        // memory plan holds for each.
        for (int it = 0; it < m_ctx.iterations; ++it)
            for (std::size_t p = 0; p < m_order.size(); ++p) {
                const int id = m_order[p];
                const Instance &inst = m_ig.instances[static_cast<std::size_t>(id)];
                if (m_ctx.overlap() && static_cast<int>(p) == m_first[static_cast<std::size_t>(inst.subgraph)]) {
                    const int next = m_next[static_cast<std::size_t>(inst.subgraph)];
                    if (next >= 0 && m_resident[static_cast<std::size_t>(next)])
                        for (int k : partsOf(next, it))
                            promote(plan, next, k, true);
                }
                for (int k : partsOf(inst.subgraph, it)) {
                    auto st = lowerPart(plan, static_cast<int>(p), k);
                    if (!st)
                        return st;
                }
            }
        auto &step = m_ctx.trace.add(
            "S6: lower to plan (§3.4, §3.5, §4.4)", std::to_string(plan.tasks.size()) + " tasks",
            std::to_string(plan.kernels.size()) + " kernels, " + std::to_string(out.copies) + " copies, " +
                std::to_string(out.redistributes) + " redistributions, " + std::to_string(out.concats) + " concats",
            m_ctx.overlap() ? "instances in order; weight promotion one sub-graph ahead, compute "
                              "units on their own queues (§4.4)"
                            : "instances in order, one at a time per core");
        step.numbers = {{"tasks", double(plan.tasks.size())},
                        {"buffers", double(plan.buffers.size())},
                        {"lb_share", out.memory.lbShare()},
                        {"spills", double(out.memory.spills.size())},
                        {"redistributes", double(out.redistributes)},
                        {"overlapped_promotions", double(out.overlappedPromotions)},
                        {"hoists", double(out.hoists)}};
        return out;
    }

private:
    // The parts of sub-graph s that run in iteration `it` (an unspread sub-graph runs in the first).
    std::vector<int> partsOf(int s, int it) const
    {
        std::vector<int> out;
        const int parts = m_sgs[static_cast<std::size_t>(s)].clusterParts;
        for (int k = 0; k < parts; ++k)
            if ((parts == 1 ? 0 : m_ctx.iterationOfPart(k)) == it)
                out.push_back(k);
        return out;
    }
    int clusterOf(const SubGraph &sg, int k) const { return sg.clusterParts == 1 ? 0 : m_ctx.clusterOfPart(k); }

    // The compute tasks a part at position p on cluster c waits for before anything of it
    // starts (full variant). It may run beside the part before it when that one may overlap it
    // (§4.4; the memory plan keeps both working sets then), never beside an earlier one: it waits
    // for the two parts before that one (their ends imply every earlier part's, by induction: a
    // part never starts before all parts three back have ended), and for the one before it
    // unless they may overlap.
    // With `load`, the gate of the part's loads into its working set (copies, redistributions,
    // concats): the memory plan keeps that working set from the position before (ordering.h), so
    // they never wait for the part before — only for the ones before it, whose space the working
    // set reuses (double-buffered LB, §4.4).
    std::vector<TaskId> gate(int p, int c, bool load = false) const
    {
        const auto &chain = m_chain[static_cast<std::size_t>(c)];
        std::vector<TaskId> out;
        const std::size_t n = chain.size();
        for (std::size_t k = 1; k <= std::min<std::size_t>(3, n); ++k) {
            const auto &[pos, task] = chain[n - k];
            if (k == 1 && pos == p - 1 && (load || m_overlap[static_cast<std::size_t>(pos)]))
                continue;
            out.push_back(task);
        }
        return out;
    }

    // §3.5, Fig. 9 left: a copy is inserted where the scopes mismatch, promoting a producer slice
    // into the consumer's working set in faster memory. A slice already in GB or DDR that the
    // working set does not sit above (the working set spilled to the same level or a slower one,
    // §4.3) has no scope to be promoted to: the kernel reads it in place (its own tiles' DMA,
    // §4.1), as it reads an LB slice. Choice: GB is per cluster, so only a slice in this part's
    // cluster's GB, or in DDR, is read in place.
    static bool readInPlace(const Part &q, int cluster, int workLevel)
    {
        return q.level >= 1 && q.level <= workLevel && (q.cluster == cluster || q.level >= 2);
    }

    // The regions part (instance, cluster) reads from outside its sub-graph. Cluster 0's come
    // from the instance graph (S3 computed them). Another cluster's part computes the same
    // slice of the next share of the batch: its regions are cluster 0's with dim 0 of every
    // activation shifted by that share — checked against taskRegions on the first part of each
    // sub-graph and cluster, and used only where they agree.
    Expected<std::map<TensorId, ops::Region>> readRegions(int id, int c, const std::vector<NodeTile> &tiles)
    {
        const std::map<TensorId, ops::Region> &base = m_ig.reads[static_cast<std::size_t>(id)];
        if (c == 0)
            return base;
        const int s = m_ig.instances[static_cast<std::size_t>(id)].subgraph;
        const SubGraph &sg = m_sgs[static_cast<std::size_t>(s)];
        std::map<TensorId, ops::Region> shifted = base;
        for (auto &[t, r] : shifted) {
            const Tensor &tt = m_g.tensor(t);
            if (tt.isConstant() || r.empty() || tt.shape.empty())
                continue;
            const std::int64_t share = tt.shape.front() / sg.clusterParts;
            r.front().begin += c * share;
            r.front().end += c * share;
        }
        auto known = m_shiftOk.find({s, c});
        if (known != m_shiftOk.end() && known->second)
            return shifted;
        auto regions = taskRegions(m_g, m_kernels[static_cast<std::size_t>(s)], tiles);
        if (!regions)
            return regions.status();
        if (known == m_shiftOk.end())
            m_shiftOk[{s, c}] = regions->read == shifted;
        return std::move(regions->read);
    }

    std::int32_t streamOf(int cluster, int unit) const
    {
        return cluster * static_cast<std::int32_t>(m_dev.units.size()) + std::max(0, unit);
    }

    // (sub-graph, cluster) -> the weight promotion task and its GB buffer.
    // (Keyed by part: each in-cluster iteration promotes its sub-graphs' weights again.)
    std::pair<TaskId, BufferId> promote(ExecutionPlan &plan, int s, int k, bool ahead)
    {
        auto it = m_promoted.find({s, k});
        if (it != m_promoted.end())
            return it->second;
        const SubGraph &sg = m_sgs[static_cast<std::size_t>(s)];
        const int c = clusterOf(sg, k);
        const std::int64_t wb = m_weightBytes[static_cast<std::size_t>(s)];
        const BufferId wbuf = plan.addBuffer({0, kInvalidId, levelName(1), scopeOf(1, c, 0), {}, wb, -1});
        Task promote;
        promote.kind = TaskKind::Copy;
        promote.writes = {wbuf};
        // Ahead (§4.4): bound to the cluster only, so no core's queue holds it back; it waits for the
        // last compute task issued on the cluster before it, then runs beside the next one.
        promote.binding = ahead ? Binding{c, -1, 1, -1, -1} : Binding{c, 0, boundCores(sg.binding), -1, -1};
        if (ahead && !m_chain[static_cast<std::size_t>(c)].empty())
            promote.deps = {m_chain[static_cast<std::size_t>(c)].back().second};
        promote.stage = s;
        promote.cost = m_ctx.cost.transferCost(wb, levelName(2), levelName(1));
        promote.label = "promote weights of sg" + std::to_string(s) + " " + levelName(2) + "→" + levelName(1) +
                        " on cluster " + std::to_string(c) + (ahead ? " (ahead)" : "");
        const TaskId t = plan.addTask(std::move(promote));
        ++m_out->promotions;
        if (ahead)
            ++m_out->overlappedPromotions;
        return m_promoted.emplace(std::make_pair(s, k), std::make_pair(t, wbuf)).first->second;
    }

    // A DDR buffer holding the region of a graph input a copy reads (one per input and region).
    BufferId inputSlice(ExecutionPlan &plan, TensorId t, const ops::Region &region)
    {
        std::vector<std::int64_t> bounds;
        for (const ops::Interval &i : region)
            bounds.insert(bounds.end(), {i.begin, i.end});
        auto key = std::make_pair(t, std::move(bounds));
        auto it = m_inputSlices.find(key);
        if (it != m_inputSlices.end())
            return it->second;
        const bool whole = region == ops::fullRegion(m_g.tensor(t).shape);
        const BufferId b = plan.addBuffer({0, t, levelName(2), scopeOf(2, 0, 0), whole ? ops::Region{} : region,
                                           regionBytes(m_g.tensor(t), region), -1});
        return m_inputSlices.emplace(key, b).first->second;
    }

    // Part k of the instance at position p (on cluster c, see partsOf).
    Status lowerPart(ExecutionPlan &plan, int p, int k)
    {
        const std::vector<MemItem> &items = *m_items;
        const int id = m_order[static_cast<std::size_t>(p)];
        const Instance &inst = m_ig.instances[static_cast<std::size_t>(id)];
        const SubGraph &sg = m_sgs[static_cast<std::size_t>(inst.subgraph)];
        const std::vector<int> &binding = inst.binding.empty() ? sg.binding : inst.binding;
        const int cores = boundCores(binding);
        const int outItem = (*m_itemOfOutput)[static_cast<std::size_t>(id)];
        const int workItem = outItem - 1;
        const int workLevel = m_memory->level[static_cast<std::size_t>(workItem)];
        const int level = m_memory->level[static_cast<std::size_t>(outItem)];
        const TensorId outT = outputOf(m_g, sg);
        const int c = clusterOf(sg, k);
        const bool tiled = sg.splitFactor > 1 || sg.clusterParts > 1;
        const Binding onCores{c, 0, cores, -1, -1};
        Part part;
        part.cluster = c;
        if (tiled) {
            part.tile = inst.tile;
            const std::int64_t share = m_g.tensor(outT).shape.front() / sg.clusterParts;
            part.tile.front().begin += k * share;
            part.tile.front().end += k * share;
        }
        Task task;
        task.kind = TaskKind::Compute;
        task.kernel = inst.subgraph;
        if (tiled)
            task.tiles.push_back({sg.exit, 0, part.tile});
        // No unit binding: each node runs on the unit its class and dtype map to (a bound unit would
        // force every node of the instance onto it, the convolutions of an f16 run onto the VME).
        task.binding = {c, 0, cores, -1, -1};
        if (m_ctx.overlap()) // §4.4: one in-order queue per cluster and compute unit
            task.binding.stream = streamOf(c, sg.unit);
        task.stage = inst.subgraph;
        const std::string name =
            instName(inst) + (sg.clusterParts > 1 ? "@c" + std::to_string(c) : "") +
            (m_ctx.iterations > 1 ? "i" + std::to_string(sg.clusterParts == 1 ? 0 : m_ctx.iterationOfPart(k)) : "");
        std::set<TaskId> deps;
        std::vector<TaskId> own;   // what this part's compute waits for (full variant)
        std::vector<TaskId> gated; // what its loads into the working set wait for
        if (m_ctx.overlap()) {
            own = gate(p, c);
            deps.insert(own.begin(), own.end());
            gated = gate(p, c, items[static_cast<std::size_t>(workItem)].start < p);
        }
        TaskId promoted = -1;
        BufferId weightsInGb = -1;
        if (m_resident[static_cast<std::size_t>(inst.subgraph)]) {
            const auto [pt, wbuf] = promote(plan, inst.subgraph, k, false);
            promoted = pt;
            weightsInGb = wbuf;
        }
        auto regions = readRegions(id, k, task.tiles);
        if (!regions)
            return regions.status();

        // The working set first: copies and redistributions write the slices they bring into it.
        std::vector<BufferId> work;
        const std::int64_t workBytes = items[static_cast<std::size_t>(workItem)].bytes;
        if (workBytes > 0)
            work = addBuffers(plan, kInvalidId, {}, workBytes, workLevel, cores, c);

        // S1: producer slices this part reads, per producer sub-graph.
        struct Src {
            const Part *part;
            std::int64_t bytes;
            bool redistribute;
        };
        std::map<int, std::vector<Src>> bySubgraph;
        for (std::size_t k = 0; k < inst.producers.size(); ++k) {
            const int pi = inst.producers[k];
            const bool redis = k < inst.redistribute.size() && inst.redistribute[k];
            const Instance &pinst = m_ig.instances[static_cast<std::size_t>(pi)];
            const SubGraph &psg = m_sgs[static_cast<std::size_t>(pinst.subgraph)];
            const TensorId pt = outputOf(m_g, psg);
            for (const Part &q : m_parts[static_cast<std::size_t>(pi)]) {
                auto r = regions->find(pt);
                if (r == regions->end() || regionEmpty(r->second)) {
                    if (q.tile.empty()) // reads another output of an unsplit producer
                        bySubgraph[pinst.subgraph].push_back({&q, 0, false});
                    continue;
                }
                if (!q.tile.empty() && !regionsOverlap(q.tile, r->second))
                    continue;
                const ops::Region needed = q.tile.empty() ? r->second : regionIntersect(q.tile, r->second);
                if (!regionEmpty(needed))
                    bySubgraph[pinst.subgraph].push_back({&q, regionBytes(m_g.tensor(pt), needed), redis});
            }
        }
        for (const auto &[psg, srcs] : bySubgraph) {
            std::vector<TaskId> srcDeps;
            std::vector<BufferId> srcBufs;
            // S2 (Fig. 9): slices kept in GB/DDR (or on another cluster) are copied into the working
            // set, one copy per level (left); LB slices bound to other cores than this part infers for
            // them are redistributed between the cores (right); the rest is read in place.
            std::map<int, std::tuple<std::vector<BufferId>, std::vector<TaskId>, std::int64_t>> moved;
            for (const Src &src : srcs) {
                const Part *q = src.part;
                const int pl = q->cluster == c ? q->level : std::max(q->level, 1);
                if ((pl == 0 && !src.redistribute) || readInPlace(*q, c, workLevel)) {
                    srcBufs.insert(srcBufs.end(), q->buffers.begin(), q->buffers.end());
                    srcDeps.push_back(q->task);
                    continue;
                }
                auto &[cb, cd, total] = moved[pl == 0 ? -1 : pl];
                cb.insert(cb.end(), q->buffers.begin(), q->buffers.end());
                cd.push_back(q->task);
                total += src.bytes;
            }
            for (const auto &[pl, what] : moved) {
                auto [cb, cd, total] = what;
                cd.insert(cd.end(), gated.begin(), gated.end());
                const std::string what2 =
                    std::to_string(std::get<1>(what).size()) + " slices of sg" + std::to_string(psg) + " ";
                if (pl < 0) {
                    Task redis;
                    redis.kind = TaskKind::Redistribute;
                    redis.deps = cd;
                    redis.reads = cb;
                    redis.writes = work;
                    redis.binding = onCores;
                    redis.stage = inst.subgraph;
                    redis.cost = m_ctx.cost.transferCost(total, levelName(0), levelName(0));
                    redis.cost.syncNs += m_ctx.cost.syncNs();
                    redis.cost.timeNs += m_ctx.cost.syncNs();
                    redis.label = "redistribute " + what2 + "to " + bindingStr(binding) + " for " + name;
                    srcDeps.push_back(plan.addTask(std::move(redis)));
                    ++m_out->redistributes;
                } else {
                    srcDeps.push_back(
                        addCopy(plan, cb, work, cd, total, pl, workLevel,
                                "copy " + what2 + levelName(pl) + "→" + levelName(workLevel) + " for " + name, onCores,
                                inst.subgraph));
                    ++m_out->copies;
                }
                srcBufs.insert(srcBufs.end(), cb.begin(), cb.end());
            }
            task.reads.insert(task.reads.end(), srcBufs.begin(), srcBufs.end());
            if (srcs.size() >= 2) {
                Task concat;
                concat.kind = TaskKind::Concat;
                concat.deps = srcDeps;
                concat.deps.insert(concat.deps.end(), gated.begin(), gated.end());
                std::sort(concat.deps.begin(), concat.deps.end());
                concat.deps.erase(std::unique(concat.deps.begin(), concat.deps.end()), concat.deps.end());
                concat.reads = srcBufs;
                concat.binding = onCores;
                concat.stage = inst.subgraph;
                concat.cost = m_ctx.cost.transferCost(0, levelName(0), levelName(0));
                concat.label =
                    "concat " + std::to_string(srcs.size()) + " slices of sg" + std::to_string(psg) + " for " + name;
                deps.insert(plan.addTask(std::move(concat)));
                ++m_out->concats;
            } else {
                deps.insert(srcDeps.begin(), srcDeps.end());
            }
        }
        // Graph inputs this part reads: their slices copied DDR → the working set (read in place
        // when the working set is in DDR too: no scope mismatch, §3.5).
        for (const auto &[t, region] : *regions) {
            if (m_g.tensor(t).kind != Tensor::Kind::Input || regionEmpty(region))
                continue;
            const BufferId b = inputSlice(plan, t, region);
            if (workLevel >= 2) {
                task.reads.push_back(b);
                continue;
            }
            deps.insert(addCopy(plan, {b}, work, gated, regionBytes(m_g.tensor(t), region), 2, workLevel,
                                "copy input " + m_g.tensor(t).name + " → " + levelName(workLevel) + " for " + name,
                                onCores, inst.subgraph));
            ++m_out->copies;
            task.reads.push_back(b);
        }
        // S2b (§4.1, option hoist): the promoted weights hoisted GB → LB by a task of their own
        // when they fit beside what the memory plan keeps in LB at this position; otherwise the
        // kernel reads them from GB.
        if (promoted >= 0) {
            const std::int64_t wb = m_weightBytes[static_cast<std::size_t>(inst.subgraph)];
            const std::int64_t perCore = (wb + cores - 1) / cores;
            if (m_ctx.hoist && perCore <= m_ctx.lbPerCore - m_lbUsed[static_cast<std::size_t>(p)]) {
                const std::vector<BufferId> inLb = addBuffers(plan, kInvalidId, {}, wb, 0, cores, c);
                std::vector<TaskId> hoistDeps = own; // not counted at the position before
                hoistDeps.push_back(promoted);
                deps.insert(addCopy(plan, {weightsInGb}, inLb, hoistDeps, wb, 1, 0,
                                    "hoist weights of sg" + std::to_string(inst.subgraph) + " " + levelName(1) + "→" +
                                        levelName(0) + " for " + name,
                                    onCores, inst.subgraph));
                task.reads.insert(task.reads.end(), inLb.begin(), inLb.end());
                ++m_out->hoists;
            } else {
                deps.insert(promoted);
                task.reads.push_back(weightsInGb);
            }
        }
        task.deps.assign(deps.begin(), deps.end());

        // S3: the output slice at its level, in this part's cluster, then the working set.
        part.level = level;
        if (outT != kInvalidId)
            part.buffers = addBuffers(plan, outT, part.tile, inst.outputBytes, level, cores, c);
        task.writes = part.buffers;
        task.writes.insert(task.writes.end(), work.begin(), work.end());
        // Instances of a sub-graph are alike: one estimate per sub-graph, levels, cores and weight reads.
        auto weights = weightReadsOf(inst.subgraph, *regions);
        std::int64_t fromGb = 0, fromDdr = 0;
        for (const auto &[t, wr] : weights)
            (wr.level == levelName(1) ? fromGb : fromDdr) += static_cast<std::int64_t>(wr.bytes);
        m_out->weightBytesFromGb += fromGb;
        m_out->weightBytesFromDdr += fromDdr;
        const auto key = std::make_tuple(inst.subgraph, level, workLevel, cores, fromGb, fromDdr);
        auto cost = m_costs.find(key);
        if (cost == m_costs.end()) {
            KernelPlacement placement;
            placement.cores = cores;
            placement.ioLevel = levelName(level);
            placement.intermediateLevel = levelName(workLevel);
            // Producer slices are read in place from LB or were copied into the working set.
            placement.inputLevel = levelName(workLevel);
            placement.workFraction = 1.0 / double(sg.splitFactor * sg.clusterParts);
            placement.weightReads = std::move(weights);
            cost = m_costs.emplace(key, m_ctx.cost.kernelCost(m_g, sg.nodes, placement)).first;
        }
        task.cost = cost->second;
        task.label = name + " " + shapeOf(inst) + " " + levelName(level) + " bind " + bindingStr(binding);
        part.task = plan.addTask(std::move(task));
        m_chain[static_cast<std::size_t>(c)].push_back({p, part.task});
        m_parts[static_cast<std::size_t>(id)].push_back(std::move(part));
        return Status::ok();
    }

    // S0 (§4.4, weights.h): W1 decided for the order (the allocation above gave GB less its
    // weights), W2 into what is left.
    void decideWeightResidency(WeightPlan weights)
    {
        addWeightsInFreeSpace(m_ctx, m_sgs, *m_items, *m_memory, weights);
        const std::size_t n = m_sgs.size();
        m_weightBytes = weights.bytes;
        m_residentWeights = std::move(weights.resident);
        m_resident.assign(n, false);
        for (std::size_t s = 0; s < n; ++s)
            m_resident[s] = !m_residentWeights[s].empty();
        m_first = weights.firstInstance;
        m_next = weights.next;
    }

    // §4.4: per weight the instance at `id` reads, where from and how much — its region of the
    // weight (a split that partitions it reads its slice), from GB when its sub-graph keeps it
    // there, else from DDR.
    std::map<TensorId, KernelPlacement::WeightRead> weightReadsOf(int s, const std::map<TensorId, ops::Region> &regions)
    {
        std::map<TensorId, KernelPlacement::WeightRead> out;
        for (NodeId node : m_sgs[static_cast<std::size_t>(s)].nodes)
            for (TensorId t : m_g.node(node).inputs) {
                if (t == kInvalidId || !m_g.tensor(t).isConstant() || out.count(t))
                    continue;
                auto r = regions.find(t);
                const double bytes =
                    double(r == regions.end() || r->second.empty() ? m_g.tensor(t).bytes()
                                                                   : regionBytes(m_g.tensor(t), r->second));
                out[t] = {levelName(m_residentWeights[static_cast<std::size_t>(s)].count(t) ? 1 : 2), bytes};
            }
        return out;
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
        const std::vector<std::size_t> idx = victimCandidates(items, live, preferred);
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

    // The device level of a §4.3 level: LB is the first, GB the second and DDR
    // the last one. DDR is the level nothing is spilled out of, so on a device
    // with more levels (host: L1, L2, L3, DRAM) the ones between GB and the
    // last are not used; taking levels[2] there put every tensor spilled to
    // DDR into L3, whose capacity the allocation never checks.
    std::string levelName(int level) const
    {
        const std::size_t n = m_dev.levels.size();
        const std::size_t i = level <= 0 ? 0 : level == 1 ? std::min<std::size_t>(1, n - 1) : n - 1;
        return m_dev.levels[i].name;
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

    TaskId addCopy(ExecutionPlan &plan, const std::vector<BufferId> &src, const std::vector<BufferId> &dst,
                   std::vector<TaskId> deps, std::int64_t bytes, int from, int to, std::string label, Binding binding,
                   int stage)
    {
        Task copy;
        copy.kind = TaskKind::Copy;
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        copy.deps = std::move(deps);
        copy.reads = src;
        copy.writes = dst;
        copy.binding = binding;
        copy.stage = stage;
        copy.cost = m_ctx.cost.transferCost(bytes, levelName(from), levelName(to));
        copy.label = std::move(label);
        return plan.addTask(std::move(copy));
    }

    Context &m_ctx;
    const Graph &m_g;
    const Device &m_dev;
    const std::vector<SubGraph> &m_sgs;
    const InstanceGraph &m_ig;
    const std::vector<int> &m_order;
    std::vector<Kernel> m_kernels; // node lists of the sub-graphs, for taskRegions
    // (sub-graph, output level, working level, cores, weight bytes read from GB, from DDR)
    std::map<std::tuple<int, int, int, int, std::int64_t, std::int64_t>, TaskCost> m_costs;
    std::vector<std::int64_t> m_weightBytes;                  // per sub-graph: bytes of its weights kept in GB
    std::vector<std::set<TensorId>> m_residentWeights;        // per sub-graph: its weights kept in GB
    std::vector<std::int64_t> m_lbUsed;                       // per position: LB bytes per core kept live
    std::vector<bool> m_resident;                             // weights promoted to GB once per cluster
    std::vector<int> m_first;                                 // per sub-graph: position of its first instance
    std::vector<int> m_next;                                  // per sub-graph: the one whose first instance follows
    std::vector<char> m_overlap;                              // per position: may overlap the next (§4.4)
    std::vector<std::vector<std::pair<int, TaskId>>> m_chain; // per cluster: (position, compute task) so far
    std::vector<std::vector<Part>> m_parts;                   // per instance
    std::map<std::pair<int, int>, std::pair<TaskId, BufferId>> m_promoted; // (sub-graph, cluster) -> task, buffer
    std::map<std::pair<TensorId, std::vector<std::int64_t>>, BufferId> m_inputSlices;
    std::map<std::pair<int, int>, bool> m_shiftOk; // (sub-graph, cluster): regions are cluster 0's shifted
    const std::vector<MemItem> *m_items = nullptr;
    const std::vector<int> *m_itemOfOutput = nullptr;
    const LevelAssignment *m_memory = nullptr;
    Lowered *m_out = nullptr;
};

} // namespace

Expected<Lowered> lowerToPlan(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                              const Ordering &ordering)
{
    return Lowerer(ctx, subgraphs, ig, ordering).run();
}

} // namespace tessera::graphturbo
