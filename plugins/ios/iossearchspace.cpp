// IosSearchLog → SearchSpace; see iossearchspace.h. Per recorded part:
//   S1  states: labels, nodes, cost[S], schedules
//   S2  transitions, a one-unit stage listed under both strategies kept once
//   S3  the walked path: the transition each path state took (from the
//       schedule's stage and strategy; added when the table lacks it)
//   S4  the decisions of path states' transitions
#include "plugins/ios/iossearchspace.h"

#include "core/support/assert.h"

#include <algorithm>
#include <map>

namespace tessera {

namespace {

constexpr std::size_t kLabelNames = 5;  // names in a state label before it is clipped
constexpr std::size_t kStageNames = 12; // names in a stage label before it is clipped

std::string withCommas(std::int64_t v)
{
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

class PartConverter
{
public:
    PartConverter(const IosUnitSet &units, const IosSearchResult &result)
        : m_units(units), m_result(result), m_mark(units.units.size(), 0)
    {}

    SearchSpace::Table convert(const IosDpTable &dp, const SearchSpaceRequest &request)
    {
        SearchSpace::Table t;
        const IosPartStats *stats = partStats(dp);
        const std::string &block = m_units.blocks[static_cast<std::size_t>(dp.block)].name;
        const std::size_t partCount = partsOfBlock(dp.block);
        const std::size_t n = stats ? stats->units.size() : 0;
        t.title = block + (partCount > 1 ? ", part " + std::to_string(dp.part) : "") + " (" + std::to_string(n) +
                  (n == 1 ? " unit)" : " units)");
        t.searchedStates = stats ? stats->states : 0;
        t.searchedTransitions = stats ? stats->transitions : 0;
        t.complete = dp.complete;
        if (dp.states.empty()) { // over maxStates: IosSearchLog kept nothing
            t.note = withCommas(t.searchedStates) + " dp states: over the explorer's limit of " +
                     withCommas(request.maxStates) + " per part, only the counts are kept";
            return t;
        }
        if (!dp.complete && t.searchedTransitions > request.maxTransitions)
            t.note = withCommas(t.searchedTransitions) + " transitions: over the explorer's limit of " +
                     withCommas(request.maxTransitions) + " per part; states and the path are kept";
        else if (!dp.complete)
            t.note = withCommas(t.searchedTransitions) + " transitions: past the explorer's total of " +
                     withCommas(request.maxTotalTransitions) +
                     " over all parts; states and the path are kept (narrow the scope to this block)";

        // S1
        m_full = dp.states.back().units; // states are by size: the last is V
        const std::size_t all = m_full.size();
        t.states.reserve(dp.states.size());
        for (const IosDpTable::State &s : dp.states) {
            SearchSpace::State st;
            st.label = stateLabel(s.units, all);
            st.nodes = nodesOf(s.units);
            st.size = static_cast<std::int32_t>(s.units.size());
            st.cost = s.costNs;
            st.count = s.schedules;
            st.onPath = s.onPath;
            t.states.push_back(std::move(st));
        }

        // S2
        m_groups.clear();
        std::vector<std::int32_t> remap(dp.transitions.size(), -1);
        std::map<std::int32_t, std::int32_t> single; // to -> kept one-unit transition of the current state
        std::int32_t current = -1;
        t.transitions.reserve(dp.transitions.size());
        for (std::size_t i = 0; i < dp.transitions.size(); ++i) {
            const IosDpTable::Transition &tr = dp.transitions[i];
            if (tr.from != current) {
                current = tr.from;
                single.clear();
            }
            const bool one = tr.groups.size() == 1 && tr.groups[0].size() == 1;
            if (one) {
                if (auto it = single.find(tr.to); it != single.end()) {
                    SearchSpace::Transition &kept = t.transitions[static_cast<std::size_t>(it->second)];
                    kept.stepCost = std::min(kept.stepCost, tr.stageNs);
                    kept.totalCost = kept.stepCost + t.states[static_cast<std::size_t>(tr.to)].cost;
                    remap[i] = it->second;
                    continue;
                }
            }
            remap[i] = static_cast<std::int32_t>(t.transitions.size());
            if (one)
                single[tr.to] = remap[i];
            t.transitions.push_back(transition(tr.from, tr.to, one ? "single" : iosStrategyName(tr.strategy), tr.groups,
                                               tr.strategy, tr.stageNs, t.states));
            if (t.states[static_cast<std::size_t>(tr.from)].onPath)
                m_groups[remap[i]] = concurrentGroups(tr.groups, tr.strategy);
        }
        m_range.assign(t.states.size(), {0, 0});
        for (std::size_t i = t.transitions.size(); i-- > 0;) { // contiguous by `from`
            auto &r = m_range[static_cast<std::size_t>(t.transitions[i].from)];
            if (r.second == 0)
                r.second = static_cast<std::int32_t>(i + 1);
            r.first = static_cast<std::int32_t>(i);
        }
        for (std::size_t i = 0; i < dp.states.size(); ++i)
            if (dp.states[i].choice >= 0)
                t.states[i].choice = remap[static_cast<std::size_t>(dp.states[i].choice)];

        // S3
        t.path = dp.path;
        for (std::size_t k = 0; k + 1 < t.path.size(); ++k)
            walk(t, dp, t.path[k], t.path[k + 1]);
        return t;
    }

private:
    const IosPartStats *partStats(const IosDpTable &dp) const
    {
        for (const IosPartStats &p : m_result.parts)
            if (p.block == dp.block && p.part == dp.part)
                return &p;
        return nullptr;
    }

    std::size_t partsOfBlock(std::int32_t block) const
    {
        return static_cast<std::size_t>(std::count_if(m_result.parts.begin(), m_result.parts.end(),
                                                      [&](const IosPartStats &p) { return p.block == block; }));
    }

    const std::string &name(std::int32_t unit) const { return m_units.units[static_cast<std::size_t>(unit)].name; }

    std::vector<NodeId> nodesOf(const std::vector<std::int32_t> &units) const
    {
        std::vector<NodeId> nodes;
        std::size_t count = 0;
        for (std::int32_t u : units)
            count += m_units.units[static_cast<std::size_t>(u)].nodes.size();
        nodes.reserve(count);
        for (std::int32_t u : units) {
            const auto &un = m_units.units[static_cast<std::size_t>(u)].nodes;
            nodes.insert(nodes.end(), un.begin(), un.end());
        }
        return nodes;
    }

    std::string nameList(const std::vector<std::int32_t> &units) const
    {
        std::string out = "{";
        for (std::size_t i = 0; i < units.size() && i < kLabelNames; ++i)
            out += (i ? ", " : "") + name(units[i]);
        if (units.size() > kLabelNames)
            out += ", … +" + std::to_string(units.size() - kLabelNames);
        return out + "}";
    }

    // "{a, b, c}", or by what is already scheduled when that is the shorter list.
    std::string stateLabel(const std::vector<std::int32_t> &units, std::size_t all)
    {
        if (units.empty())
            return "∅";
        if (units.size() <= kLabelNames || all - units.size() >= units.size())
            return nameList(units);
        for (std::int32_t u : units)
            m_mark[static_cast<std::size_t>(u)] = 1;
        std::vector<std::int32_t> done;
        for (std::int32_t u : m_full)
            if (!m_mark[static_cast<std::size_t>(u)])
                done.push_back(u);
        for (std::int32_t u : units)
            m_mark[static_cast<std::size_t>(u)] = 0;
        return done.empty() ? "V" : "V − " + nameList(done);
    }

    // "a,b | c" for concurrent groups, "a + b" for a merge.
    std::string stageLabel(const std::vector<std::vector<std::int32_t>> &groups, IosStrategy strategy) const
    {
        std::string out;
        std::size_t shown = 0, total = 0;
        for (const auto &g : groups)
            total += g.size();
        for (std::size_t gi = 0; gi < groups.size() && shown < kStageNames; ++gi) {
            if (gi)
                out += " | ";
            for (std::size_t i = 0; i < groups[gi].size() && shown < kStageNames; ++i, ++shown)
                out += (i ? (strategy == IosStrategy::Merge ? " + " : ",") : "") + name(groups[gi][i]);
        }
        if (shown < total)
            out += " … +" + std::to_string(total - shown);
        return out;
    }

    SearchSpace::Transition transition(std::int32_t from, std::int32_t to, std::string_view kind,
                                       const std::vector<std::vector<std::int32_t>> &groups, IosStrategy strategy,
                                       double stageNs, const std::vector<SearchSpace::State> &states) const
    {
        SearchSpace::Transition t;
        t.from = from;
        t.to = to;
        t.kind = std::string(kind);
        t.label = stageLabel(groups, strategy);
        std::size_t count = 0;
        for (const auto &g : groups)
            for (std::int32_t u : g)
                count += m_units.units[static_cast<std::size_t>(u)].nodes.size();
        t.nodes.reserve(count);
        for (const auto &g : groups)
            for (std::int32_t u : g) {
                const auto &nodes = m_units.units[static_cast<std::size_t>(u)].nodes;
                t.nodes.insert(t.nodes.end(), nodes.begin(), nodes.end());
            }
        t.stepCost = stageNs;
        t.totalCost = stageNs + states[static_cast<std::size_t>(to)].cost;
        return t;
    }

    // The stage of the schedule that scheduled `unit`.
    const IosStage *stageOf(std::int32_t unit)
    {
        if (m_stageOfUnit.empty()) {
            m_stageOfUnit.assign(m_units.units.size(), -1);
            for (std::size_t s = 0; s < m_result.schedule.stages.size(); ++s)
                for (const auto &g : m_result.schedule.stages[s].groups)
                    for (std::int32_t u : g)
                        m_stageOfUnit[static_cast<std::size_t>(u)] = static_cast<std::int32_t>(s);
        }
        const std::int32_t s = m_stageOfUnit[static_cast<std::size_t>(unit)];
        return s < 0 ? nullptr : &m_result.schedule.stages[static_cast<std::size_t>(s)];
    }

    // The stage's concurrent groups, as the walk names its options: a merge of
    // sinks is one group per unit.
    static std::vector<std::vector<std::int32_t>> concurrentGroups(const std::vector<std::vector<std::int32_t>> &groups,
                                                                   IosStrategy strategy)
    {
        if (strategy == IosStrategy::Concurrent)
            return groups;
        std::vector<std::vector<std::int32_t>> out;
        for (const auto &g : groups)
            for (std::int32_t u : g)
                out.push_back({u});
        return out;
    }

    // The walk's step from path state `from` to `to`: its transition and decisions.
    void walk(SearchSpace::Table &t, const IosDpTable &dp, std::int32_t from, std::int32_t to)
    {
        const auto &fromUnits = dp.states[static_cast<std::size_t>(from)].units;
        const auto &toUnits = dp.states[static_cast<std::size_t>(to)].units;
        for (std::int32_t u : toUnits)
            m_mark[static_cast<std::size_t>(u)] = 1;
        std::int32_t first = -1; // a unit of the stage
        for (std::int32_t u : fromUnits)
            if (!m_mark[static_cast<std::size_t>(u)] && first < 0)
                first = u;
        for (std::int32_t u : toUnits)
            m_mark[static_cast<std::size_t>(u)] = 0;
        TS_ASSERT(first >= 0);
        const IosStage *stage = stageOf(first);
        TS_ASSERT(stage);
        const std::size_t stageSize = fromUnits.size() - toUnits.size();
        const std::string_view kind = stageSize == 1 ? std::string_view("single") : iosStrategyName(stage->strategy);

        // S3: the transition taken (two share `to` only when a stage could run either way).
        // (Not a structured binding: clang 14 cannot capture one in the lambda of S4.)
        const std::int32_t begin = m_range[static_cast<std::size_t>(from)].first;
        const std::int32_t end = m_range[static_cast<std::size_t>(from)].second;
        std::int32_t taken = -1;
        for (std::int32_t i = begin; i < end; ++i) {
            const SearchSpace::Transition &tr = t.transitions[static_cast<std::size_t>(i)];
            if (tr.to == to && tr.kind == kind)
                taken = i;
        }
        if (taken < 0) { // not in the table: forced outside the pruned space, or transitions not kept
            taken = static_cast<std::int32_t>(t.transitions.size());
            t.transitions.push_back(transition(from, to, t.complete ? "forced" : kind, stage->groups, stage->strategy,
                                               stage->latencyNs, t.states));
            m_groups[taken] = concurrentGroups(stage->groups, stage->strategy);
        }
        t.states[static_cast<std::size_t>(from)].choice = taken;

        // S4: every transition of a path state answers the decision asked there.
        const std::string key = iosEndingKey(m_units, fromUnits);
        auto answer = [&](std::int32_t i) {
            SearchSpace::Transition &tr = t.transitions[static_cast<std::size_t>(i)];
            const auto &groups = m_groups.at(i);
            tr.decisionKey = key;
            tr.optionId = iosStageId(m_units, groups);
            if (tr.kind != "merge" && tr.kind != "concurrent")
                return;
            bool merge = false, concurrent = false; // the same stage both ways
            for (std::int32_t j = begin; j < end; ++j) {
                const SearchSpace::Transition &o = t.transitions[static_cast<std::size_t>(j)];
                merge = merge || (o.to == tr.to && o.kind == "merge");
                concurrent = concurrent || (o.to == tr.to && o.kind == "concurrent");
            }
            if (merge && concurrent) {
                std::vector<std::int32_t> stageUnits;
                for (const auto &g : groups)
                    stageUnits.insert(stageUnits.end(), g.begin(), g.end());
                tr.extraDecisions = {{iosStrategyKey(m_units, stageUnits), tr.kind}};
            }
        };
        for (std::int32_t i = begin; i < end; ++i)
            answer(i);
        if (taken >= end || taken < begin)
            answer(taken);
    }

    const IosUnitSet &m_units;
    const IosSearchResult &m_result;
    std::vector<char> m_mark; // per unit, scratch, all zero between uses
    std::vector<std::int32_t> m_full;
    std::vector<std::int32_t> m_stageOfUnit;
    std::map<std::int32_t, std::vector<std::vector<std::int32_t>>>
        m_groups;                                               // path states' transitions: concurrent groups
    std::vector<std::pair<std::int32_t, std::int32_t>> m_range; // per state: its transitions [begin, end)
};

} // namespace

IosSearchLog iosSearchLogFor(const SearchSpaceRequest &request)
{
    IosSearchLog log;
    log.maxStates = request.maxStates;
    log.maxTransitions = request.maxTransitions;
    log.maxTotalTransitions = request.maxTotalTransitions;
    log.block = request.scope;
    return log;
}

SearchSpace iosSearchSpace(const Graph &g, const IosUnitSet &units, const IosSearchLog &log,
                           const IosSearchResult &result, const SearchSpaceRequest &request)
{
    SearchSpace space;
    space.algorithm = "ios";
    space.nodeNames.reserve(g.nodeCount());
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
        space.nodeNames.push_back(g.node(n).name);
    if (!request.scope.empty() && std::none_of(units.blocks.begin(), units.blocks.end(),
                                               [&](const IosBlock &b) { return b.name == request.scope; })) {
        space.note = "no block '" + request.scope + "'; blocks:";
        for (std::size_t b = 0; b < units.blocks.size(); ++b) {
            if (b == 12) {
                space.note += " … (" + std::to_string(units.blocks.size()) + " in all)";
                break;
            }
            space.note += (b ? ", " : " ") + units.blocks[b].name;
        }
        return space;
    }
    PartConverter converter(units, result);
    space.tables.reserve(log.parts.size());
    for (const IosDpTable &dp : log.parts)
        space.tables.push_back(converter.convert(dp, request));
    return space;
}

} // namespace tessera
