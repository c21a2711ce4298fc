// SearchSpaceModel: a scheduler's explored search space (core/sched/searchspace.h;
// inter-operator scheduling thesis §3.2, Fig. 3.4 (2)) as a tree for the DP explorer:
//
//   table ("block3 (18 units)")
//     level (state size, largest first: "level 3 · 4 states")
//       state (label, cost, best schedule through it, schedules, #transitions)
//         transition (stage label, kind, stage cost, total cost, ✓ chosen, ★ best)
//
// Everything is lazy so a table of 10^5 states opens at once: a table computes
// its index (levels, per-state transition lists, best costs through each state)
// the first time its rows are fetched, a level hands out its states and a state
// its transitions kDefaultChunk at a time through canFetchMore()/fetchMore().
// Within a level the path state comes first, then states by the best schedule
// through them; a state's transitions go cheapest first.
//
// "Best through S" (ViaColumn) is cost-to-come(S) + cost[S]: the latency of the
// best schedule that passes through S, from a forward pass over the table; Δ is
// that against the table's optimum for a state and a transition's total cost
// against cost[from] (how much worse than the best way on from there).
//
// SearchSpaceFilterModel is the matching QSortFilterProxyModel: a text (a unit
// or operator name in the state's label or nodes, or in the stage's), "path
// only" (exactly the path's states) and "within x% of best" (Δ ≤ x). Rows are
// judged from the tables themselves, never from fetched children, so filtering
// works with lazy loading; its fetchMore() keeps fetching until a chunk of rows
// passes. Qt Core only; both are checked with QAbstractItemModelTester. The
// explorer's drawing of a table is laid out in searchdaglayout.h.
#pragma once

#include "core/ir/graph.h"
#include "core/sched/searchspace.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tessera::views {

class SearchSpaceModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,      // title / level / state label / stage label
        MarkColumn,      // ◆ path state; ✓ chosen, ★ best transition
        KindColumn,      // transition kind, "path" for a path state
        StageColumn,     // a transition's own cost
        CostColumn,      // cost[S] / a transition's total cost / a table's optimum
        ViaColumn,       // best schedule through a state
        DeltaColumn,     // "+12.5%" against the best (see above)
        SchedulesColumn, // schedules from a state
        OutColumn,       // transitions of a state, states of a level or table
        ColumnCount
    };
    enum class Item : std::uint8_t { None, Table, Level, State, Transition };
    enum Role {
        ItemRole = Qt::UserRole + 1, // int(Item)
        TableRole,                   // int: table index
        StateRole,                   // int: the state (a transition's: its `from`), -1 otherwise
        TransitionRole,              // int: the transition, -1 otherwise
        OnPathRole,                  // bool: a path state, or the transition the path took
        ChosenRole,                  // bool: the transition is its state's choice
        BestRole,                    // bool: the cheapest transition of its state
        NodesRole,                   // QList<int>: the node ids of the state / stage
        SortRole,                    // double for numeric columns, else the display text
        DeltaRole,                   // double: Δ as a fraction (NaN when unknown)
    };
    static constexpr int kDefaultChunk = 256;

    // Derived per table; computed on first use.
    struct TableIndex {
        std::int32_t start = -1; // the first path state, else the largest state
        double optimum = 0;      // cost of `start`: the best schedule the search found
        double pathCost = 0;     // the walked path's cost (> optimum after a forced choice)
        bool forced() const { return pathCost > optimum * (1 + 1e-9) + 1e-9; }
        std::vector<std::int32_t> levelSize;           // per level row, largest first
        std::vector<std::vector<std::int32_t>> levels; // per level row: states in row order
        std::vector<double> levelVia;                  // per level row: the best schedule through it
        std::vector<std::int32_t> levelOf, rowInLevel; // per state
        std::vector<std::int32_t> outBegin;            // per state + 1: into `out`
        std::vector<std::int32_t> out;                 // transitions by `from`, cheapest first
        std::vector<std::int32_t> rowInState;          // per transition
        std::vector<std::int32_t> best;                // per state: cheapest transition, -1 if none
        std::vector<double> via;                       // per state: best schedule through it (inf: unknown)
        std::span<const std::int32_t> outgoing(std::int32_t state) const
        {
            const auto b = static_cast<std::size_t>(outBegin[static_cast<std::size_t>(state)]);
            const auto e = static_cast<std::size_t>(outBegin[static_cast<std::size_t>(state) + 1]);
            return std::span<const std::int32_t>(out).subspan(b, e - b);
        }
    };

    explicit SearchSpaceModel(QObject *parent = nullptr);
    ~SearchSpaceModel() override;

    void setSearchSpace(std::shared_ptr<const SearchSpace> space); // nullptr clears
    const std::shared_ptr<const SearchSpace> &searchSpace() const { return m_space; }
    int tableCount() const;
    const SearchSpace::Table *table(int t) const; // nullptr when out of range
    const TableIndex &tableIndex(int t) const;    // computes it on first use
    void setChunkSize(int rows) { m_chunk = rows > 0 ? rows : kDefaultChunk; }
    int chunkSize() const { return m_chunk; }

    Item item(const QModelIndex &index) const;
    int tableOf(const QModelIndex &index) const;      // -1 for an invalid index
    int stateOf(const QModelIndex &index) const;      // a transition's `from`; -1 for tables and levels
    int transitionOf(const QModelIndex &index) const; // -1 unless a transition
    // The row of a state or transition, fetching its parents' rows as needed.
    QModelIndex tableIndexOf(int t) const;
    QModelIndex stateIndex(int t, int state);
    QModelIndex transitionIndex(int t, int transition);
    // Δ of a state (via / optimum − 1) and of a transition (total / cost[from] − 1); NaN if unknown.
    double stateDelta(int t, int state) const;
    double transitionDelta(int t, int transition) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Exposed {                        // rows handed out so far
        bool levels = false;                // the table's level rows
        std::vector<std::int32_t> perLevel; // states per level row
        std::vector<std::int32_t> perState; // transitions per state
    };
    int totalRows(const QModelIndex &parent) const; // rows once everything is fetched
    QVariant display(const QModelIndex &index) const;
    QVariant sortValue(const QModelIndex &index) const;
    QString toolTip(const QModelIndex &index) const;

    std::shared_ptr<const SearchSpace> m_space;
    mutable std::vector<std::unique_ptr<TableIndex>> m_index;
    std::vector<Exposed> m_exposed;
    int m_chunk = kDefaultChunk;
};

struct SearchSpaceFilter {
    QString text;              // case-insensitive; empty: any
    bool pathOnly = false;     // only the path's states
    double withinPercent = -1; // < 0: off; else Δ ≤ withinPercent / 100
    bool active() const { return !text.isEmpty() || pathOnly || withinPercent >= 0; }
};

class SearchSpaceFilterModel final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit SearchSpaceFilterModel(QObject *parent = nullptr);
    ~SearchSpaceFilterModel() override;

    void setSearchSpaceModel(SearchSpaceModel *model);
    SearchSpaceModel *searchSpaceModel() const { return m_model; }
    void setFilter(SearchSpaceFilter filter);
    const SearchSpaceFilter &filter() const { return m_filter; }
    // Whether the filter keeps a state / transition of table t (also unfetched ones).
    bool acceptsState(int t, int state) const;
    bool acceptsTransition(int t, int transition) const;
    int acceptedStates(int t) const; // states of table t the filter keeps

    void fetchMore(const QModelIndex &parent) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    struct Accepted {
        bool valid = false;
        std::vector<char> state, transition, level;
        int states = 0;
    };
    const Accepted &accepted(int t) const;

    SearchSpaceModel *m_model = nullptr;
    SearchSpaceFilter m_filter;
    mutable std::vector<Accepted> m_accepted; // per table, recomputed when the filter or space changes
};

QString searchDeltaText(double fraction); // "best", "+1.7%", "+12%"; "—" when unknown
QString searchCountText(double count);    // formatCount: "950", "25.6 M", "2.19 Y", past Y "7.85e+27"

} // namespace tessera::views
