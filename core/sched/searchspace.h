// SearchSpace: the explored search of a scheduler, kept for the explorer view
// (inter-operator scheduling thesis Fig. 3.4: states, transitions with their costs, the chosen path).
//
// A scheduler that searches a state space (a dynamic programming over
// endings; later Welder's tile search or GraphTurbo's instance search) may
// fill one SearchSpace per run when the request asks for it. It is a plain,
// read-only record in the algorithm's own terms, not a copy of the scheduler's
// internals: one table per independently solved piece (e.g. a part of a
// block), each a DAG of states linked by transitions, with the walked path.
//
// Bounded by construction: a table keeps at most the request's maxStates and
// maxTransitions; over that, it keeps its states (up to the limit) and marks
// itself incomplete with a note, so a huge search never floods memory or the
// view. A transition that answers a decision carries its decision key and
// option id, so a view can turn "choose this transition" into an override
// without knowing the algorithm.
#pragma once

#include "core/ir/graph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

struct SearchSpaceRequest {
    std::int64_t maxStates = 100'000;        // per table
    std::int64_t maxTransitions = 1'000'000; // per table
    std::string scope;                       // algorithm-defined filter, e.g. "block3"; empty: everything
    // Over all tables (a network of many parts would otherwise keep them all);
    // a table past it keeps its states and path only.
    std::int64_t maxTotalTransitions = 1'000'000;
};

struct SearchSpace {
    struct State {
        std::string label;         // short, e.g. "{a, b, c}"
        std::vector<NodeId> nodes; // the nodes the state stands for (e.g. still to schedule)
        std::int32_t size = 0;     // level in the view (e.g. units still to schedule)
        double cost = 0;           // best cost from here (ns)
        double count = 0;          // e.g. schedules from here
        std::int32_t choice = -1;  // index into transitions of the chosen way on, -1 if none
        bool onPath = false;
    };
    struct Transition {
        std::int32_t from = 0, to = 0; // state indices
        std::string label;             // e.g. "a,b | c"
        std::string kind;              // e.g. "concurrent", "merge"
        std::vector<NodeId> nodes;     // nodes the step schedules
        double stepCost = 0;           // this step's own cost (ns)
        double totalCost = 0;          // stepCost + cost of `to`
        std::string decisionKey;       // non-empty: choosing this is an override of that key
        std::string optionId;
        // Further (key, option id) overrides the same choice needs, e.g. the
        // strategy key when a stage could run merged or concurrently.
        std::vector<std::pair<std::string, std::string>> extraDecisions;
    };
    struct Table {
        std::string title; // "block 3, part 1"
        std::vector<State> states;
        std::vector<Transition> transitions;
        std::vector<std::int32_t> path;  // state indices from the start to the end, as walked
        bool complete = true;            // false: over the request's limits
        std::string note;                // why incomplete, or anything the view should say
        std::int64_t searchedStates = 0; // what the search explored (≥ the kept ones)
        std::int64_t searchedTransitions = 0;
    };
    std::string algorithm;
    std::string costUnit = "ns";
    std::vector<Table> tables;
    std::vector<std::string> nodeNames; // by NodeId, for labels and text filters; may be empty
    std::string note;                   // e.g. why there are no tables ("no block 'x'; blocks: ...")
};

} // namespace tessera
