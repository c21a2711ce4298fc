#include "views/models/searchspacemodel.h"

#include "core/support/assert.h"
#include "views/models/format.h"
#include "views/models/plansummary.h"

#include <QList>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace tessera::views {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// internalId: item kind (3 bits) | table (13 bits) | state or transition (48 bits).
static_assert(sizeof(quintptr) == 8, "the search space model packs ids into 64 bits");
constexpr int kTableBits = 13;
constexpr quintptr kIndexMask = (quintptr{1} << 48) - 1;

quintptr pack(SearchSpaceModel::Item item, int table, std::int64_t index)
{
    TS_ASSERT(table >= 0 && table < (1 << kTableBits) && index >= 0);
    return (quintptr(item) << 61) | (quintptr(table) << 48) | (quintptr(index) & kIndexMask);
}
SearchSpaceModel::Item itemOf(quintptr id)
{
    return static_cast<SearchSpaceModel::Item>(id >> 61);
}
int tableOfId(quintptr id)
{
    return static_cast<int>((id >> 48) & ((quintptr{1} << kTableBits) - 1));
}
std::int32_t indexOfId(quintptr id)
{
    return static_cast<std::int32_t>(id & kIndexMask);
}

QString duration(double ns)
{
    return std::isfinite(ns) ? formatDurationNs(ns) : QStringLiteral("—");
}

void buildIndex(const SearchSpace::Table &t, SearchSpaceModel::TableIndex &ix)
{
    const auto n = t.states.size();
    const auto m = t.transitions.size();
    // Transitions by `from`, cheapest first (CSR).
    ix.outBegin.assign(n + 1, 0);
    for (const auto &tr : t.transitions)
        ++ix.outBegin[static_cast<std::size_t>(tr.from) + 1];
    std::partial_sum(ix.outBegin.begin(), ix.outBegin.end(), ix.outBegin.begin());
    ix.out.assign(m, 0);
    {
        std::vector<std::int32_t> fill(ix.outBegin.begin(), ix.outBegin.end() - 1);
        for (std::size_t i = 0; i < m; ++i)
            ix.out[static_cast<std::size_t>(fill[static_cast<std::size_t>(t.transitions[i].from)]++)] =
                static_cast<std::int32_t>(i);
    }
    ix.best.assign(n, -1);
    ix.rowInState.assign(m, 0);
    for (std::size_t s = 0; s < n; ++s) {
        auto b = ix.out.begin() + ix.outBegin[s], e = ix.out.begin() + ix.outBegin[s + 1];
        const std::int32_t chosen = t.states[s].choice;
        std::stable_sort(b, e, [&](std::int32_t x, std::int32_t y) {
            const double cx = t.transitions[static_cast<std::size_t>(x)].totalCost;
            const double cy = t.transitions[static_cast<std::size_t>(y)].totalCost;
            return cx != cy ? cx < cy : (x == chosen && y != chosen);
        });
        if (b != e)
            ix.best[s] = *b;
        for (auto it = b; it != e; ++it)
            ix.rowInState[static_cast<std::size_t>(*it)] = static_cast<std::int32_t>(it - b);
    }

    // The start and the cost to come: states by size, largest first.
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        return t.states[static_cast<std::size_t>(a)].size > t.states[static_cast<std::size_t>(b)].size;
    });
    ix.start = !t.path.empty() ? t.path.front() : n ? order.front() : -1;
    ix.optimum = ix.start >= 0 ? t.states[static_cast<std::size_t>(ix.start)].cost : 0;
    // The path as walked: each path state's chosen transition, which an override may have forced
    // away from the cheapest. Without choices on the path, the path is the optimum.
    ix.pathCost = ix.optimum;
    if (t.path.size() > 1) {
        double walked = 0;
        bool known = true;
        for (std::size_t k = 0; k + 1 < t.path.size() && known; ++k) {
            const std::int32_t c = t.states[static_cast<std::size_t>(t.path[k])].choice;
            known = c >= 0 && static_cast<std::size_t>(c) < m &&
                    t.transitions[static_cast<std::size_t>(c)].to == t.path[k + 1];
            if (known)
                walked += t.transitions[static_cast<std::size_t>(c)].stepCost;
        }
        if (known)
            ix.pathCost = walked + t.states[static_cast<std::size_t>(t.path.back())].cost;
    }
    std::vector<double> come(n, kInf);
    if (ix.start >= 0)
        come[static_cast<std::size_t>(ix.start)] = 0;
    for (std::int32_t s : order) {
        const double c = come[static_cast<std::size_t>(s)];
        if (!std::isfinite(c))
            continue;
        for (std::int32_t i : ix.outgoing(s)) {
            const auto &tr = t.transitions[static_cast<std::size_t>(i)];
            double &to = come[static_cast<std::size_t>(tr.to)];
            to = std::min(to, c + tr.stepCost);
        }
    }
    ix.via.resize(n);
    for (std::size_t s = 0; s < n; ++s)
        ix.via[s] = come[s] + t.states[s].cost;

    // Levels, largest first; in a level the path state, then by best schedule through.
    ix.levelOf.assign(n, 0);
    ix.rowInLevel.assign(n, 0);
    for (std::int32_t s : order) {
        const std::int32_t size = t.states[static_cast<std::size_t>(s)].size;
        if (ix.levelSize.empty() || ix.levelSize.back() != size) {
            ix.levelSize.push_back(size);
            ix.levels.emplace_back();
        }
        ix.levels.back().push_back(s);
    }
    for (std::size_t l = 0; l < ix.levels.size(); ++l) {
        auto &states = ix.levels[l];
        std::stable_sort(states.begin(), states.end(), [&](std::int32_t a, std::int32_t b) {
            const auto &sa = t.states[static_cast<std::size_t>(a)];
            const auto &sb = t.states[static_cast<std::size_t>(b)];
            if (sa.onPath != sb.onPath)
                return sa.onPath;
            const double va = ix.via[static_cast<std::size_t>(a)], vb = ix.via[static_cast<std::size_t>(b)];
            if (va != vb)
                return va < vb;
            return sa.cost < sb.cost;
        });
        double best = kInf;
        for (std::int32_t st : states)
            best = std::min(best, ix.via[static_cast<std::size_t>(st)]);
        ix.levelVia.push_back(best);
        for (std::size_t r = 0; r < states.size(); ++r) {
            ix.levelOf[static_cast<std::size_t>(states[r])] = static_cast<std::int32_t>(l);
            ix.rowInLevel[static_cast<std::size_t>(states[r])] = static_cast<std::int32_t>(r);
        }
    }
}

QList<int> nodeList(const std::vector<NodeId> &nodes)
{
    QList<int> out;
    out.reserve(static_cast<qsizetype>(nodes.size()));
    for (NodeId n : nodes)
        out.push_back(static_cast<int>(n));
    return out;
}

} // namespace

QString searchDeltaText(double fraction)
{
    if (std::isnan(fraction) || std::isinf(fraction))
        return QStringLiteral("—");
    if (fraction < 5e-7)
        return QStringLiteral("best");
    return QStringLiteral("+%1%").arg(fraction * 100, 0, 'f', fraction < 0.1 ? 1 : 0);
}

QString searchCountText(double count)
{
    return formatCount(count); // past the largest prefix it writes "7.85e+27" itself
}

SearchSpaceModel::SearchSpaceModel(QObject *parent) : QAbstractItemModel(parent) {}

SearchSpaceModel::~SearchSpaceModel() = default;

void SearchSpaceModel::setSearchSpace(std::shared_ptr<const SearchSpace> space)
{
    beginResetModel();
    m_space = std::move(space);
    m_index.clear();
    m_exposed.clear();
    if (m_space) {
        TS_ASSERT(m_space->tables.size() < (std::size_t{1} << kTableBits));
        m_index.resize(m_space->tables.size());
        m_exposed.resize(m_space->tables.size());
    }
    endResetModel();
}

int SearchSpaceModel::tableCount() const
{
    return m_space ? static_cast<int>(m_space->tables.size()) : 0;
}

const SearchSpace::Table *SearchSpaceModel::table(int t) const
{
    return t >= 0 && t < tableCount() ? &m_space->tables[static_cast<std::size_t>(t)] : nullptr;
}

const SearchSpaceModel::TableIndex &SearchSpaceModel::tableIndex(int t) const
{
    TS_ASSERT(table(t));
    auto &slot = m_index[static_cast<std::size_t>(t)];
    if (!slot) {
        slot = std::make_unique<TableIndex>();
        buildIndex(*table(t), *slot);
    }
    return *slot;
}

SearchSpaceModel::Item SearchSpaceModel::item(const QModelIndex &index) const
{
    return index.isValid() ? itemOf(index.internalId()) : Item::None;
}

int SearchSpaceModel::tableOf(const QModelIndex &index) const
{
    return index.isValid() ? tableOfId(index.internalId()) : -1;
}

int SearchSpaceModel::stateOf(const QModelIndex &index) const
{
    switch (item(index)) {
    case Item::State: return indexOfId(index.internalId());
    case Item::Transition:
        return table(tableOf(index))->transitions[static_cast<std::size_t>(indexOfId(index.internalId()))].from;
    default: return -1;
    }
}

int SearchSpaceModel::transitionOf(const QModelIndex &index) const
{
    return item(index) == Item::Transition ? indexOfId(index.internalId()) : -1;
}

QModelIndex SearchSpaceModel::tableIndexOf(int t) const
{
    return table(t) ? createIndex(t, 0, pack(Item::Table, t, 0)) : QModelIndex();
}

QModelIndex SearchSpaceModel::stateIndex(int t, int state)
{
    const SearchSpace::Table *tab = table(t);
    if (!tab || state < 0 || state >= static_cast<int>(tab->states.size()))
        return {};
    const TableIndex &ix = tableIndex(t);
    const QModelIndex tableIdx = tableIndexOf(t);
    if (canFetchMore(tableIdx))
        fetchMore(tableIdx);
    const int level = ix.levelOf[static_cast<std::size_t>(state)];
    const QModelIndex levelIdx = index(level, 0, tableIdx);
    while (m_exposed[static_cast<std::size_t>(t)].perLevel[static_cast<std::size_t>(level)] <=
           ix.rowInLevel[static_cast<std::size_t>(state)])
        fetchMore(levelIdx);
    return index(ix.rowInLevel[static_cast<std::size_t>(state)], 0, levelIdx);
}

QModelIndex SearchSpaceModel::transitionIndex(int t, int transition)
{
    const SearchSpace::Table *tab = table(t);
    if (!tab || transition < 0 || transition >= static_cast<int>(tab->transitions.size()))
        return {};
    const auto &tr = tab->transitions[static_cast<std::size_t>(transition)];
    const QModelIndex stateIdx = stateIndex(t, tr.from);
    const TableIndex &ix = tableIndex(t);
    while (m_exposed[static_cast<std::size_t>(t)].perState[static_cast<std::size_t>(tr.from)] <=
           ix.rowInState[static_cast<std::size_t>(transition)])
        fetchMore(stateIdx);
    return index(ix.rowInState[static_cast<std::size_t>(transition)], 0, stateIdx);
}

double SearchSpaceModel::stateDelta(int t, int state) const
{
    const TableIndex &ix = tableIndex(t);
    const double via = ix.via[static_cast<std::size_t>(state)];
    if (!std::isfinite(via) || !(ix.optimum > 0))
        return std::nan("");
    return via / ix.optimum - 1;
}

double SearchSpaceModel::transitionDelta(int t, int transition) const
{
    const auto &tab = *table(t);
    const auto &tr = tab.transitions[static_cast<std::size_t>(transition)];
    const double best = tab.states[static_cast<std::size_t>(tr.from)].cost;
    if (!std::isfinite(tr.totalCost) || !(best > 0))
        return std::nan("");
    return tr.totalCost / best - 1;
}

QModelIndex SearchSpaceModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    const int t = parent.isValid() ? tableOf(parent) : row;
    switch (item(parent)) {
    case Item::None: return createIndex(row, column, pack(Item::Table, t, 0));
    case Item::Table: return createIndex(row, column, pack(Item::Level, t, row));
    case Item::Level: {
        const auto &states = tableIndex(t).levels[static_cast<std::size_t>(indexOfId(parent.internalId()))];
        return createIndex(row, column, pack(Item::State, t, states[static_cast<std::size_t>(row)]));
    }
    case Item::State: {
        const auto out = tableIndex(t).outgoing(indexOfId(parent.internalId()));
        return createIndex(row, column, pack(Item::Transition, t, out[static_cast<std::size_t>(row)]));
    }
    case Item::Transition: break;
    }
    return {};
}

QModelIndex SearchSpaceModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int t = tableOf(child);
    const std::int32_t i = indexOfId(child.internalId());
    switch (item(child)) {
    case Item::Level: return createIndex(t, 0, pack(Item::Table, t, 0));
    case Item::State: {
        const auto level = tableIndex(t).levelOf[static_cast<std::size_t>(i)];
        return createIndex(level, 0, pack(Item::Level, t, level));
    }
    case Item::Transition: {
        const std::int32_t from = table(t)->transitions[static_cast<std::size_t>(i)].from;
        return createIndex(tableIndex(t).rowInLevel[static_cast<std::size_t>(from)], 0, pack(Item::State, t, from));
    }
    default: return {};
    }
}

int SearchSpaceModel::totalRows(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const int t = tableOf(parent);
    switch (item(parent)) {
    case Item::None: return tableCount();
    case Item::Table: return table(t)->states.empty() ? 0 : static_cast<int>(tableIndex(t).levels.size());
    case Item::Level:
        return static_cast<int>(tableIndex(t).levels[static_cast<std::size_t>(indexOfId(parent.internalId()))].size());
    case Item::State: return static_cast<int>(tableIndex(t).outgoing(indexOfId(parent.internalId())).size());
    case Item::Transition: return 0;
    }
    return 0;
}

int SearchSpaceModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const int t = tableOf(parent);
    switch (item(parent)) {
    case Item::None: return tableCount();
    case Item::Table: return m_exposed[static_cast<std::size_t>(t)].levels ? totalRows(parent) : 0;
    case Item::Level: {
        const auto &e = m_exposed[static_cast<std::size_t>(t)];
        return e.perLevel[static_cast<std::size_t>(indexOfId(parent.internalId()))];
    }
    case Item::State: {
        const auto &e = m_exposed[static_cast<std::size_t>(t)];
        return e.perState.empty() ? 0 : e.perState[static_cast<std::size_t>(indexOfId(parent.internalId()))];
    }
    case Item::Transition: return 0;
    }
    return 0;
}

int SearchSpaceModel::columnCount(const QModelIndex &parent) const
{
    return parent.column() > 0 ? 0 : ColumnCount;
}

bool SearchSpaceModel::hasChildren(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return false;
    switch (item(parent)) {
    case Item::None: return tableCount() > 0;
    case Item::Table: return !table(tableOf(parent))->states.empty();
    case Item::Level: return true;
    case Item::State: return !tableIndex(tableOf(parent)).outgoing(indexOfId(parent.internalId())).empty();
    case Item::Transition: return false;
    }
    return false;
}

bool SearchSpaceModel::canFetchMore(const QModelIndex &parent) const
{
    if (!parent.isValid() || parent.column() > 0)
        return false;
    if (item(parent) == Item::Table) // without computing the table's index
        return !m_exposed[static_cast<std::size_t>(tableOf(parent))].levels && !table(tableOf(parent))->states.empty();
    return rowCount(parent) < totalRows(parent);
}

void SearchSpaceModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    const int t = tableOf(parent);
    auto &e = m_exposed[static_cast<std::size_t>(t)];
    const int have = rowCount(parent);
    const int total = totalRows(parent);
    switch (item(parent)) {
    case Item::Table: {
        const TableIndex &ix = tableIndex(t);
        beginInsertRows(parent, 0, total - 1);
        e.levels = true;
        e.perLevel.assign(ix.levels.size(), 0);
        e.perState.assign(table(t)->states.size(), 0);
        endInsertRows();
        return;
    }
    case Item::Level:
    case Item::State: {
        const int more = std::min(m_chunk, total - have);
        beginInsertRows(parent, have, have + more - 1);
        auto &count = item(parent) == Item::Level
                          ? e.perLevel[static_cast<std::size_t>(indexOfId(parent.internalId()))]
                          : e.perState[static_cast<std::size_t>(indexOfId(parent.internalId()))];
        count += more;
        endInsertRows();
        return;
    }
    default: return;
    }
}

QVariant SearchSpaceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_space)
        return {};
    const int t = tableOf(index);
    const std::int32_t i = indexOfId(index.internalId());
    const Item it = item(index);
    switch (role) {
    case Qt::DisplayRole: return display(index);
    case Qt::ToolTipRole: return toolTip(index);
    case Qt::TextAlignmentRole:
        if (index.column() >= StageColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        if (index.column() == MarkColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignCenter));
        return {};
    case ItemRole: return static_cast<int>(it);
    case TableRole: return t;
    case StateRole: return stateOf(index);
    case TransitionRole: return transitionOf(index);
    case SortRole: return sortValue(index);
    default: break;
    }
    const SearchSpace::Table &tab = *table(t);
    if (it == Item::State) {
        const auto &s = tab.states[static_cast<std::size_t>(i)];
        switch (role) {
        case OnPathRole: return s.onPath;
        case NodesRole: return QVariant::fromValue(nodeList(s.nodes));
        case DeltaRole: return stateDelta(t, i);
        default: return {};
        }
    }
    if (it == Item::Transition) {
        const auto &tr = tab.transitions[static_cast<std::size_t>(i)];
        const auto &from = tab.states[static_cast<std::size_t>(tr.from)];
        switch (role) {
        case OnPathRole: return from.onPath && from.choice == i;
        case ChosenRole: return from.choice == i;
        case BestRole: return tableIndex(t).best[static_cast<std::size_t>(tr.from)] == i;
        case NodesRole: return QVariant::fromValue(nodeList(tr.nodes));
        case DeltaRole: return transitionDelta(t, i);
        default: return {};
        }
    }
    return {};
}

QVariant SearchSpaceModel::display(const QModelIndex &index) const
{
    const int t = tableOf(index);
    const std::int32_t i = indexOfId(index.internalId());
    const SearchSpace::Table &tab = *table(t);
    switch (item(index)) {
    case Item::Table:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(tab.title);
        case KindColumn: return tab.complete ? QString() : QStringLiteral("incomplete");
        case CostColumn: {
            if (tab.states.empty())
                return QString();
            const TableIndex &ix = tableIndex(t);
            return ix.forced() ? QStringLiteral("%1 (forced)").arg(duration(ix.pathCost)) : duration(ix.optimum);
        }
        case SchedulesColumn:
            return tab.states.empty()
                       ? QString()
                       : searchCountText(tab.states[static_cast<std::size_t>(tableIndex(t).start)].count);
        case OutColumn: return QStringLiteral("%1 states").arg(formatCount(static_cast<double>(tab.states.size())));
        default: return {};
        }
    case Item::Level: {
        const TableIndex &ix = tableIndex(t);
        const auto &states = ix.levels[static_cast<std::size_t>(i)];
        switch (index.column()) {
        case NameColumn: return QStringLiteral("level %1").arg(ix.levelSize[static_cast<std::size_t>(i)]);
        case ViaColumn: return duration(ix.levelVia[static_cast<std::size_t>(i)]);
        case OutColumn:
            return QStringLiteral("%1 %2").arg(formatCount(static_cast<double>(states.size())),
                                               states.size() == 1 ? QStringLiteral("state") : QStringLiteral("states"));
        default: return {};
        }
    }
    case Item::State: {
        const auto &s = tab.states[static_cast<std::size_t>(i)];
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(s.label);
        case MarkColumn: return s.onPath ? QStringLiteral("◆") : QString();
        case KindColumn:
            return !s.onPath                ? QString()
                   : tableIndex(t).forced() ? QStringLiteral("forced path")
                                            : QStringLiteral("path");
        case CostColumn: return duration(s.cost);
        case ViaColumn: return duration(tableIndex(t).via[static_cast<std::size_t>(i)]);
        case DeltaColumn: {
            // On a forced path a path state says what the walked path costs, not the best through it.
            const TableIndex &ix = tableIndex(t);
            if (s.onPath && ix.forced())
                return searchDeltaText(ix.pathCost / ix.optimum - 1);
            return searchDeltaText(stateDelta(t, i));
        }
        case SchedulesColumn: return searchCountText(s.count);
        case OutColumn: return QString::number(tableIndex(t).outgoing(i).size());
        default: return {};
        }
    }
    case Item::Transition: {
        const auto &tr = tab.transitions[static_cast<std::size_t>(i)];
        const auto &from = tab.states[static_cast<std::size_t>(tr.from)];
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(tr.label);
        case MarkColumn: {
            QString mark;
            if (from.choice == i)
                mark += QStringLiteral("✓");
            if (tableIndex(t).best[static_cast<std::size_t>(tr.from)] == i)
                mark += QStringLiteral("★");
            return mark;
        }
        case KindColumn: return QString::fromStdString(tr.kind);
        case StageColumn: return duration(tr.stepCost);
        case CostColumn: return duration(tr.totalCost);
        case DeltaColumn: return searchDeltaText(transitionDelta(t, i));
        case OutColumn:
            return QStringLiteral("→ %1").arg(
                QString::fromStdString(tab.states[static_cast<std::size_t>(tr.to)].label));
        default: return {};
        }
    }
    default: return {};
    }
}

QVariant SearchSpaceModel::sortValue(const QModelIndex &index) const
{
    const int t = tableOf(index);
    const std::int32_t i = indexOfId(index.internalId());
    const SearchSpace::Table &tab = *table(t);
    if (item(index) == Item::State) {
        const auto &s = tab.states[static_cast<std::size_t>(i)];
        switch (index.column()) {
        case CostColumn: return s.cost;
        case ViaColumn: return tableIndex(t).via[static_cast<std::size_t>(i)];
        case DeltaColumn: return stateDelta(t, i);
        case SchedulesColumn: return s.count;
        case OutColumn: return static_cast<int>(tableIndex(t).outgoing(i).size());
        default: break;
        }
    } else if (item(index) == Item::Transition) {
        const auto &tr = tab.transitions[static_cast<std::size_t>(i)];
        switch (index.column()) {
        case StageColumn: return tr.stepCost;
        case CostColumn: return tr.totalCost;
        case DeltaColumn: return transitionDelta(t, i);
        default: break;
        }
    }
    return display(index);
}

QString SearchSpaceModel::toolTip(const QModelIndex &index) const
{
    const int t = tableOf(index);
    const std::int32_t i = indexOfId(index.internalId());
    const SearchSpace::Table &tab = *table(t);
    auto names = [&](const std::vector<NodeId> &nodes) {
        QStringList out;
        for (std::size_t k = 0; k < nodes.size() && k < 12; ++k) {
            const auto n = static_cast<std::size_t>(nodes[k]);
            out << (n < m_space->nodeNames.size() ? QString::fromStdString(m_space->nodeNames[n])
                                                  : QString::number(nodes[k]));
        }
        if (nodes.size() > 12)
            out << QStringLiteral("… %1 more").arg(nodes.size() - 12);
        return out.join(QStringLiteral(", "));
    };
    switch (item(index)) {
    case Item::Table: {
        QString tip = QStringLiteral("%1 states, %2 transitions searched")
                          .arg(formatCount(static_cast<double>(tab.searchedStates)),
                               formatCount(static_cast<double>(tab.searchedTransitions)));
        if (const TableIndex &ix = tableIndex(t); ix.forced())
            tip += QStringLiteral("\nthe path, with its forced choices, costs %1: %2 over the optimum %3")
                       .arg(duration(ix.pathCost), searchDeltaText(ix.pathCost / ix.optimum - 1), duration(ix.optimum));
        if (!tab.note.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(tab.note);
        return tip;
    }
    case Item::Level:
        return QStringLiteral("states of size %1 (what is still to schedule)")
            .arg(tableIndex(t).levelSize[static_cast<std::size_t>(i)]);
    case Item::State: {
        const auto &s = tab.states[static_cast<std::size_t>(i)];
        return QStringLiteral("%1\ncost from here %2; best schedule through here %3 (%4)\nnodes: %5")
            .arg(QString::fromStdString(s.label), duration(s.cost),
                 duration(tableIndex(t).via[static_cast<std::size_t>(i)]), searchDeltaText(stateDelta(t, i)),
                 names(s.nodes));
    }
    case Item::Transition: {
        const auto &tr = tab.transitions[static_cast<std::size_t>(i)];
        QString tip = QStringLiteral("%1 (%2): stage %3 + rest %4 = %5")
                          .arg(QString::fromStdString(tr.label), QString::fromStdString(tr.kind), duration(tr.stepCost),
                               duration(tr.totalCost - tr.stepCost), duration(tr.totalCost));
        if (!tr.decisionKey.empty())
            tip += QStringLiteral("\ndouble-click to force: %1 = %2")
                       .arg(QString::fromStdString(tr.decisionKey), QString::fromStdString(tr.optionId));
        return tip + QStringLiteral("\nnodes: ") + names(tr.nodes);
    }
    default: return {};
    }
}

QVariant SearchSpaceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return QStringLiteral("State / stage");
        case MarkColumn: return QString();
        case KindColumn: return QStringLiteral("Kind");
        case StageColumn: return QStringLiteral("Stage");
        case CostColumn: return QStringLiteral("Cost");
        case ViaColumn: return QStringLiteral("Best via");
        case DeltaColumn: return QStringLiteral("Δ best");
        case SchedulesColumn: return QStringLiteral("Schedules");
        case OutColumn: return QStringLiteral("Out");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case MarkColumn: return QStringLiteral("◆ on the path · ✓ the transition taken · ★ the cheapest way on");
        case StageColumn: return QStringLiteral("the stage's own latency (StageLatency[S'])");
        case CostColumn:
            return QStringLiteral("state: cost[S], the best latency from here; transition: stage + cost[S − S']");
        case ViaColumn: return QStringLiteral("the best schedule through this state (cost to come + cost[S])");
        case DeltaColumn:
            return QStringLiteral("state: best via against the optimum (a state on a forced path: the walked "
                                  "path's); transition: its total against cost[S]");
        case SchedulesColumn: return QStringLiteral("schedules (paths) from this state to ∅");
        default: return {};
        }
    }
    return {};
}

// ---- SearchSpaceFilterModel -------------------------------------------------------

SearchSpaceFilterModel::SearchSpaceFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(false);
    setDynamicSortFilter(false);
}

SearchSpaceFilterModel::~SearchSpaceFilterModel() = default;

void SearchSpaceFilterModel::setSearchSpaceModel(SearchSpaceModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_accepted.clear();
    // Before the proxy's own connections, so the cache is gone when it re-filters.
    if (m_model)
        connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] { m_accepted.clear(); });
    setSourceModel(model);
}

void SearchSpaceFilterModel::setFilter(SearchSpaceFilter filter)
{
    filter.text = filter.text.trimmed();
    m_filter = std::move(filter);
    m_accepted.clear();
    invalidateFilter();
}

const SearchSpaceFilterModel::Accepted &SearchSpaceFilterModel::accepted(int t) const
{
    if (m_accepted.size() != static_cast<std::size_t>(m_model->tableCount()))
        m_accepted.assign(static_cast<std::size_t>(m_model->tableCount()), {});
    Accepted &a = m_accepted[static_cast<std::size_t>(t)];
    if (a.valid)
        return a;
    a.valid = true;
    const SearchSpace &space = *m_model->searchSpace();
    const SearchSpace::Table &tab = *m_model->table(t);
    const auto &ix = m_model->tableIndex(t);
    const auto n = tab.states.size(), m = tab.transitions.size();

    // Text: names of nodes, labels of states and stages.
    std::vector<char> nodeHit;
    auto textHit = [&](const std::string &label, const std::vector<NodeId> &nodes) {
        if (m_filter.text.isEmpty())
            return true;
        if (QString::fromStdString(label).contains(m_filter.text, Qt::CaseInsensitive))
            return true;
        for (NodeId nd : nodes)
            if (static_cast<std::size_t>(nd) < nodeHit.size() && nodeHit[static_cast<std::size_t>(nd)])
                return true;
        return false;
    };
    if (!m_filter.text.isEmpty()) {
        nodeHit.resize(space.nodeNames.size());
        for (std::size_t k = 0; k < space.nodeNames.size(); ++k)
            nodeHit[k] = QString::fromStdString(space.nodeNames[k]).contains(m_filter.text, Qt::CaseInsensitive);
    }
    const double within = m_filter.withinPercent >= 0 ? m_filter.withinPercent / 100 + 1e-9 : -1;
    std::vector<char> stateText(n), transitionText(m);
    for (std::size_t s = 0; s < n; ++s)
        stateText[s] = textHit(tab.states[s].label, tab.states[s].nodes);
    for (std::size_t i = 0; i < m; ++i)
        transitionText[i] = textHit(tab.transitions[i].label, tab.transitions[i].nodes);

    a.state.assign(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
        const auto &st = tab.states[s];
        if (m_filter.pathOnly && !st.onPath)
            continue;
        if (within >= 0) {
            const double d = m_model->stateDelta(t, static_cast<int>(s));
            if (!(d <= within))
                continue;
        }
        bool text = stateText[s];
        for (std::int32_t i : ix.outgoing(static_cast<std::int32_t>(s)))
            text = text || transitionText[static_cast<std::size_t>(i)];
        a.state[s] = text;
        a.states += text;
    }
    a.transition.assign(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
        const auto from = static_cast<std::size_t>(tab.transitions[i].from);
        if (!a.state[from] || !(stateText[from] || transitionText[i]))
            continue;
        if (within >= 0 && !(m_model->transitionDelta(t, static_cast<int>(i)) <= within))
            continue;
        a.transition[i] = 1;
    }
    a.level.assign(ix.levels.size(), 0);
    for (std::size_t s = 0; s < n; ++s)
        if (a.state[s])
            a.level[static_cast<std::size_t>(ix.levelOf[s])] = 1;
    return a;
}

bool SearchSpaceFilterModel::acceptsState(int t, int state) const
{
    if (!m_model || !m_model->table(t))
        return false;
    return !m_filter.active() || accepted(t).state[static_cast<std::size_t>(state)];
}

bool SearchSpaceFilterModel::acceptsTransition(int t, int transition) const
{
    if (!m_model || !m_model->table(t))
        return false;
    return !m_filter.active() || accepted(t).transition[static_cast<std::size_t>(transition)];
}

int SearchSpaceFilterModel::acceptedStates(int t) const
{
    if (!m_model || !m_model->table(t))
        return 0;
    return m_filter.active() ? accepted(t).states : static_cast<int>(m_model->table(t)->states.size());
}

bool SearchSpaceFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_model || !m_filter.active())
        return true;
    const QModelIndex idx = m_model->index(sourceRow, 0, sourceParent);
    const int t = m_model->tableOf(idx);
    switch (m_model->item(idx)) {
    case SearchSpaceModel::Item::Table: return true; // the explorer roots its view at a table
    case SearchSpaceModel::Item::Level: return accepted(t).level[static_cast<std::size_t>(sourceRow)];
    case SearchSpaceModel::Item::State: return accepted(t).state[static_cast<std::size_t>(m_model->stateOf(idx))];
    case SearchSpaceModel::Item::Transition:
        return accepted(t).transition[static_cast<std::size_t>(m_model->transitionOf(idx))];
    default: return true;
    }
}

void SearchSpaceFilterModel::fetchMore(const QModelIndex &parent)
{
    const int before = rowCount(parent);
    const int chunk = m_model ? m_model->chunkSize() : SearchSpaceModel::kDefaultChunk;
    while (canFetchMore(parent)) {
        QSortFilterProxyModel::fetchMore(parent);
        if (rowCount(parent) >= before + chunk)
            break;
    }
}

} // namespace tessera::views
