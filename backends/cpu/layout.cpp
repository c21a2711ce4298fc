// The activation layout pass (see layout.h).
//
// The choice is greedy in the sense that every tensor that can be blocked is:
// the ops themselves say what they can take (a convolution whose primitive
// chose the blocked layout for its source or destination, a pooling, an
// element-wise chain whose operands are all full-size, a channel Concat with
// block-aligned inputs), so the pass cannot hand an op a layout it does not
// handle. Whether a blocked chain is faster than a plain one is not weighed:
// the ops that take blocked tensors are the ones oneDNN runs fastest blocked
// (BENCHMARKS.md, 2026-11-27, "convolutions on blocked layouts").
#include "backends/cpu/layout.h"

#include <algorithm>

namespace tessera::cpu {

Expected<Layouts> assignLayouts(const Graph &g, const std::vector<CpuOp *> &ops, int block, bool enabled, JitCache *jit,
                                const std::atomic<bool> *cancel)
{
    const std::size_t nt = g.tensorCount();
    Layouts out;
    out.block = enabled ? block : 0;
    out.blocked.assign(nt, false);
    out.bytes.resize(nt);
    for (std::size_t t = 0; t < nt; ++t)
        out.bytes[t] = g.tensor(static_cast<TensorId>(t)).bytes();

    if (out.block > 0) {
        // S1: candidates.
        std::vector<bool> cand(nt, false);
        std::vector<int> writers(nt, 0), writerListed(nt, 0), readers(nt, 0), readersListed(nt, 0);
        for (std::size_t t = 0; t < nt; ++t) {
            const Tensor &tensor = g.tensor(static_cast<TensorId>(t));
            cand[t] = tensor.shape.size() == 4 && tensor.dtype == DType::Float32 && !tensor.isConstant() &&
                      tensor.producer != kInvalidId;
        }
        for (TensorId t : g.inputs)
            cand[static_cast<std::size_t>(t)] = false;
        for (TensorId t : g.outputs)
            cand[static_cast<std::size_t>(t)] = false;
        std::vector<std::vector<std::vector<TensorId>>> groups(ops.size());
        std::vector<std::vector<TensorId>> listed(ops.size());
        auto sortedUnique = [](std::vector<TensorId> v) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
            return v;
        };
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const CpuOp &op = *ops[i];
            groups[i] = op.blockedGroups(g, out.block);
            for (const auto &group : groups[i])
                listed[i].insert(listed[i].end(), group.begin(), group.end());
            listed[i] = sortedUnique(std::move(listed[i]));
            auto isListed = [&](TensorId t) { return std::binary_search(listed[i].begin(), listed[i].end(), t); };
            for (TensorId t : sortedUnique(op.writes)) {
                ++writers[static_cast<std::size_t>(t)];
                writerListed[static_cast<std::size_t>(t)] += isListed(t) ? 1 : 0;
            }
            for (TensorId t : sortedUnique(op.reads)) {
                ++readers[static_cast<std::size_t>(t)];
                readersListed[static_cast<std::size_t>(t)] += isListed(t) ? 1 : 0;
            }
        }
        for (std::size_t t = 0; t < nt; ++t)
            cand[t] = cand[t] && writers[t] == 1 && writerListed[t] == 1 && readersListed[t] >= 1 &&
                      2 * readersListed[t] >= readers[t];

        // S2: plain spreads through groups.
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto &opGroups : groups)
                for (const auto &group : opGroups) {
                    const bool allBlocked = std::all_of(group.begin(), group.end(),
                                                        [&](TensorId t) { return cand[static_cast<std::size_t>(t)]; });
                    if (allBlocked)
                        continue;
                    for (TensorId t : group)
                        if (cand[static_cast<std::size_t>(t)]) {
                            cand[static_cast<std::size_t>(t)] = false;
                            changed = true;
                        }
                }
        }
        out.blocked = std::move(cand);
        for (std::size_t t = 0; t < nt; ++t) {
            if (!out.blocked[t])
                continue;
            const Shape &s = g.tensor(static_cast<TensorId>(t)).shape;
            const std::int64_t c = out.block > 1 ? (s[1] + out.block - 1) / out.block * out.block : s[1];
            out.bytes[t] = s[0] * c * s[2] * s[3] * static_cast<std::int64_t>(sizeof(float));
            ++out.blockedTensors;
        }
    }

    // S3: every op adapts (also when nothing is blocked: an op may have been
    // made for either), seeing blocked only what it listed.
    LayoutContext ctx{g, out.blocked, out.block, jit};
    out.plainViews.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled");
        CpuOp &op = *ops[i];
        ctx.listed.clear();
        if (out.block > 0)
            for (const auto &group : op.blockedGroups(g, out.block))
                ctx.listed.insert(ctx.listed.end(), group.begin(), group.end());
        TS_TRY(op.useLayouts(ctx));
        for (TensorId t : op.reads)
            if (out.blocked[static_cast<std::size_t>(t)] && !ctx.isBlocked(t) &&
                std::find(out.plainViews[i].begin(), out.plainViews[i].end(), t) == out.plainViews[i].end())
                out.plainViews[i].push_back(t);
    }
    return out;
}

} // namespace tessera::cpu
