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

Expected<Layouts> assignLayouts(const Graph &g, const std::vector<CpuOp *> &ops, int block, bool enabled, JitCache *jit)
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
        std::vector<int> writers(nt, 0), touches(nt, 0), grouped(nt, 0);
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
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const CpuOp &op = *ops[i];
            std::vector<TensorId> touched(op.reads);
            touched.insert(touched.end(), op.writes.begin(), op.writes.end());
            std::sort(touched.begin(), touched.end());
            touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
            for (TensorId t : touched)
                ++touches[static_cast<std::size_t>(t)];
            for (TensorId t : op.writes)
                ++writers[static_cast<std::size_t>(t)];
            groups[i] = op.blockedGroups(g, out.block);
            std::vector<TensorId> listed;
            for (const auto &group : groups[i])
                listed.insert(listed.end(), group.begin(), group.end());
            std::sort(listed.begin(), listed.end());
            listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
            for (TensorId t : listed)
                if (std::binary_search(touched.begin(), touched.end(), t))
                    ++grouped[static_cast<std::size_t>(t)];
        }
        for (std::size_t t = 0; t < nt; ++t)
            cand[t] = cand[t] && writers[t] == 1 && touches[t] == grouped[t];

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
    // made for either).
    const LayoutContext ctx{g, out.blocked, out.block, jit};
    for (CpuOp *op : ops)
        TS_TRY(op->useLayouts(ctx));
    return out;
}

} // namespace tessera::cpu
