// Algo. 4: inferring core bindings and buffer scopes (graphturbo-osdi23
// §3.4, Algo. 4 lines 1-16; §3.5 and Fig. 9 for what a mismatch costs).
//
//   L1     visit = the schedule order reversed (consumers before producers);
//   L2     bind[i] = [] and scope[i] = LB for every instance;
//   L4-5   an instance with no inferred binding, or whose output was moved to
//          GB, takes the plain binding of its output (binding.h) over its
//          sub-graph's cores (the decision "graphturbo.bind" caps them);
//   L6-14  per producer instance j, infer_binding carries each binding
//          factor of the consumer's output dim d to the producer output's
//          dim that a split of the consumer tile along d narrows (the
//          dimension matching of Algo. 1 line 10, through core/ops' index
//          maps); unset bind[j] takes it (L10); a different bind[j] means a
//          communication, so j's output is declared in GB (L12; the consumer
//          then promotes it by a copy, Fig. 9 left);
//   L15-16 an instance whose binding was inferred keeps it if it uses more
//          cores than its plain binding, else takes the plain one.
// After the loop, a consumer whose inferred binding differs from the binding
// its producer ended with while that output stays in LB (L16 replaced an
// inference) reads it through a redistribution op (Fig. 9 right), marked per
// producer in Instance::redistribute.
// Choices where the paper is loose (written down here):
//   - infer_binding is per input tensor (one per producer instance), so the
//     "continue" of L7 skips that producer only;
//   - no factor of the consumer matches a producer dim (e.g. a convolution
//     bound along output channels reads its whole input): nothing to infer
//     (L6's empty case), no communication is modelled for it;
//   - an inferred binding is invalid when a factor does not divide the
//     producer tile's extent or it uses more cores than the producer
//     sub-graph's cap (the user's "graphturbo.bind" override is an annotated
//     requirement);
//   - update_binding (L16) has no annotations to reconsider here, so it is
//     the inferred binding itself.
// Decisions: once an instance's binding is final (after L5, or after
// L15-16) it is the decision "graphturbo.instance_bind" keyed by its sub-graph's
// exit node and its index: Algo. 4's binding (preferred) or a plain binding
// over the sub-graph's cores, half of them, ... one core. A forced binding
// drives the inference of its producers (L8-14) like Algo. 4's own, and the
// redistributions after the loop follow from it. An option under which the
// instance's footprint per core exceeds LB (where Algo. 4's does not) is
// illegal, so such an override is rejected with the bytes in the reason.
#pragma once

#include "plugins/graphturbo/instances.h"

namespace tessera::graphturbo {

struct ScopeStats {
    int inferred = 0;        // bindings set by inference (L10)
    int gbScopes = 0;        // outputs moved to GB by a mismatch (L12)
    int redistributes = 0;   // consumer-producer pairs needing a redistribution op
    int replacedByPlain = 0; // L16 chose the plain binding over the inferred one
    int overridden = 0;      // instance bindings forced by an override
};

ScopeStats inferBindingsAndScopes(Context &ctx, const std::vector<SubGraph> &subgraphs, InstanceGraph &ig,
                                  const std::vector<int> &order);

} // namespace tessera::graphturbo
