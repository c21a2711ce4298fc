// Algo. 1 (SplitInfo), Eq. (1) (BestSplit) and the recomputation check of
// graphturbo-osdi23 §3.1.
//
// computeSplitInfo, for a sub-graph with output O and peak footprint P:
//   L2-6   for each output dim d, outermost first, f_d is the first v of
//          1, 2, 4, 8, 9, ..., |O_d| whose instance fits LB; none: split_d = 0.
//          An instance holds U_d + ceil((P - U_d) / v): U_d is the external
//          activation inputs a split along d does not narrow (a convolution
//          split along its output channels reads its whole input in every
//          instance), the rest shrinks with v. The paper's "fits LB" is the
//          instance's footprint; ceil(P / v) alone let channel splits of
//          convolutions with inputs far larger than LB "fit", and each of
//          their f instances then copied the whole input into LB.
//   L7-11  the split of d propagates backwards through the sub-graph's index
//          maps (core/ops inputRegions via core/plan taskRegions); an
//          intermediate tensor t matches d when a split of O along d splits
//          exactly one dim of t (line 10's match_dim) whose extent f_d divides.
// Choices where the paper is loose (each written down here):
//   - v runs over divisors of |O_d|: instances of one sub-graph are
//     homogeneous (§3.3) and tile the output exactly; except where the
//     smallest divisor that fits is more than twice the smallest non-divisor
//     that does (a prime extent such as ViT's 197 tokens leaves 197 one-row
//     instances, each reading every weight again): then that non-divisor, cut
//     into ceil(|O_d| / v)-row instances and a smaller last one (ragged), an
//     intermediate matching d when its extent along the matched dim is |O_d|
//     (line 10's divisibility does not apply to a ragged cut);
//   - n_d counts the ops the split reaches, i.e. the output op plus each
//     matched intermediate (the paper's own definition of n_d, "the number of
//     ops split by it"); the tuple with the output alone is added too, so a
//     one-op sub-graph has SplitInfo (the paper's intermediates are loop-nest
//     temporaries of complex ops, which Tessera's ops do not expose);
//   - LB is the local buffers of the cores an instance runs on together
//     (Context::lbBytes), since an instance is spread over a cluster's cores.
// bestSplit is Eq. (1): lexmax (n_d, -f_d, -d).
// recomputeCheck: the "simple cost model" of §3.1 that stops fusion when the
// "recomputation of intermediate or input tensors" it causes costs more than it
// saves. Extra: (S1) the compute of the regions instances recompute (halos,
// unsplit producers) and (S2) the weights the merged sub-graph's instances
// read again beyond what its parts apart read (weightReads): every instance
// of a matmul or convolution split along its rows or pixels reads the whole
// weight, so fusing several of them under one finer split multiplies their
// weight traffic (ViT's out-projection, LayerNorm and MLP fused into one
// sub-graph cut into 197 instances per cluster read 21 MB of weights each:
// 268 GB from DDR, against 0.35 GB of weights in the model). Saved: storing
// and reloading the stitched tensors through GB. Choice: weights are priced
// from GB when they fit GB (Context::weightBudget; weights.h keeps them there
// where the space is free at that position), else from the last level.
#pragma once

#include "plugins/graphturbo/subgraph.h"

namespace tessera::graphturbo {

// Line 4's sequence: 1, 2, 4, then 8..size, divisors of size only.
std::vector<std::int64_t> splitFactorCandidates(std::int64_t size);
// The rest of line 4's 8..size: factors that do not divide size, whose ceil(size / v)-row
// instances leave a smaller but non-empty last one.
std::vector<std::int64_t> raggedFactorCandidates(std::int64_t size);
bool raggedSplitOk(std::int64_t size, std::int64_t factor);
// The region instance `index` of `factor` computes along `dim` of `shape`: ceil(size / factor)
// rows, the last instance the rest.
ops::Region instanceTile(const Shape &shape, int dim, std::int64_t factor, std::int64_t index);

// `clusterParts` > 1: the batch is spread over that many clusters (§2.1), so
// dim 0's extent and the peak are one cluster's share; `peakBytes` is that share.
// `unsplit`, if given, receives U_d per output dim (unsplitInputBytes).
std::vector<SplitTuple> computeSplitInfo(const Context &ctx, const std::vector<NodeId> &nodes, NodeId exit,
                                         std::int64_t peakBytes, int clusterParts = 1,
                                         std::vector<std::int64_t> *unsplit = nullptr);

// U_d: bytes of one cluster's share (dim 0 over `clusterParts`) of the sub-graph's external
// activation inputs that instance 0 of a split of the output in two along `dim` still reads
// as the whole output reads them (the split does not narrow them). Constants are left out (peakFootprint leaves them
// out too). 0 when dim cannot split.
std::int64_t unsplitInputBytes(const Graph &g, const std::vector<NodeId> &nodes, NodeId exit, int dim,
                               int clusterParts = 1);
// One instance's footprint: U + ceil((P - U) / v), U capped at P; with the split dim's `extent`
// and a v that does not divide it, the largest (first) instance's: U + (P - U) × ceil(extent / v) / extent.
std::int64_t instanceFootprint(std::int64_t peakBytes, std::int64_t unsplitBytes, std::int64_t factor,
                               std::int64_t extent = 0);
// Eq. (1); a tuple with factor kNoFit when the set is empty.
SplitTuple bestSplit(const std::vector<SplitTuple> &splitInfo);

// Fills peakBytes, splittable, clusterParts, splitInfo and best of `sg` from
// its nodes and exit. A splittable sub-graph whose output's dim 0 divides by
// Context::clusters is spread over the clusters; SplitInfo sizes one cluster's share.
void analyseSubGraph(const Context &ctx, SubGraph &sg);

// One cluster's share of a sub-graph's peak.
std::int64_t clusterPeak(const SubGraph &sg);

// The bytes a sub-graph's instances (all clusters' parts) read of its constant inputs
// (weights): per instance the region of each it reads; `level` (a device level index) is
// GB if they fit Context::weightBudget, else the last level.
struct WeightReads {
    int level = 0;
    double bytes = 0;
};
WeightReads weightReads(const Context &ctx, const SubGraph &sg);

struct RecomputeVerdict {
    double recomputeNs = 0; // S1: recomputed work
    double reloadNs = 0;    // S2: weights read again, merged minus its parts apart
    double extraNs = 0;     // recomputeNs + reloadNs
    double savedNs = 0;     // stores and reloads through GB avoided
    bool ok = true;         // extraNs <= savedNs
};
// `parts`: the sub-graphs `sg` merges, as they are apart.
RecomputeVerdict recomputeCheck(Context &ctx, const SubGraph &sg, const std::vector<const SubGraph *> &parts,
                                std::int64_t stitchedBytes);

} // namespace tessera::graphturbo
