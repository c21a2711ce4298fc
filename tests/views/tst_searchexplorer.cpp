// The DP explorer as a user drives it: IOS on Fig. 3.4's three convolutions and
// on RandWire's widest block (thousands of states, ~10^5 transitions) with the
// explorer on. SearchSpaceModel and its filter run under
// QAbstractItemModelTester; a level of a big table opens with one chunk of rows
// (and a synthetic table of 10^5 states opens at once); the text filter, "path
// only" and "within x %" keep exactly what they promise; forcing a transition
// emits the decision key the scheduler asks, and replaying with it makes that
// transition the one taken. Screenshots: <build>/screenshots/searchexplorer.png
// (Fig. 3.4) and searchexplorer-big.png (RandWire block3).
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iosimport.h"
#include "views/models/searchdaglayout.h"
#include "views/models/searchspacemodel.h"
#include "views/widgets/searchexplorer.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTest>
#include <QTreeView>

#include <random>
#include <set>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using namespace tessera::views;
using testgraphs::conv28;
using testgraphs::fig34;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

Q_DECLARE_METATYPE(std::string)

namespace {

using testshots::screenshotPath;

// A made-up table of `n` states in levels of 1000: each state has `fan` transitions to lower levels.
std::shared_ptr<const SearchSpace> syntheticSpace(int n, int fan)
{
    auto space = std::make_shared<SearchSpace>();
    auto &t = space->tables.emplace_back();
    t.title = "synthetic";
    std::mt19937 rng(7);
    const int perLevel = 1000, levels = (n + perLevel - 1) / perLevel;
    for (int s = 0; s < n; ++s) {
        SearchSpace::State st;
        st.size = levels - 1 - s / perLevel; // state 0 is in the top level
        st.label = "s" + std::to_string(s);
        st.nodes = {static_cast<NodeId>(s % 97)};
        t.states.push_back(std::move(st));
    }
    for (int s = n - 1; s >= 0; --s) { // costs bottom-up
        auto &st = t.states[static_cast<std::size_t>(s)];
        if (st.size == 0) {
            st.cost = 0;
            continue;
        }
        double best = 1e300;
        for (int k = 0; k < fan; ++k) {
            const int lo = (s / perLevel + 1) * perLevel;
            const int to = std::min(n - 1, lo + static_cast<int>(rng() % perLevel));
            SearchSpace::Transition tr;
            tr.from = s;
            tr.to = to;
            tr.label = "g" + std::to_string(k);
            tr.kind = "concurrent";
            tr.stepCost = 1 + static_cast<double>(rng() % 100);
            tr.totalCost = tr.stepCost + t.states[static_cast<std::size_t>(to)].cost;
            if (tr.totalCost < best) {
                best = tr.totalCost;
                st.choice = static_cast<std::int32_t>(t.transitions.size());
            }
            t.transitions.push_back(std::move(tr));
        }
        st.cost = best;
    }
    for (std::int32_t s = 0;;) { // the path along the choices
        t.path.push_back(s);
        t.states[static_cast<std::size_t>(s)].onPath = true;
        const auto c = t.states[static_cast<std::size_t>(s)].choice;
        if (c < 0)
            break;
        s = t.transitions[static_cast<std::size_t>(c)].to;
    }
    return space;
}

// Every proxy row under `parent`, fetching as the view would.
void fetchAll(QAbstractItemModel *m, const QModelIndex &parent)
{
    while (m->canFetchMore(parent))
        m->fetchMore(parent);
}

void fetchTree(QAbstractItemModel *m, const QModelIndex &parent)
{
    fetchAll(m, parent);
    for (int r = 0; r < m->rowCount(parent); ++r)
        fetchTree(m, m->index(r, 0, parent));
}

std::set<int> visibleStates(SearchSpaceFilterModel *f, const QModelIndex &root)
{
    std::set<int> out;
    fetchAll(f, root);
    for (int l = 0; l < f->rowCount(root); ++l) {
        const QModelIndex level = f->index(l, 0, root);
        fetchAll(f, level);
        for (int r = 0; r < f->rowCount(level); ++r)
            out.insert(f->index(r, 0, level).data(SearchSpaceModel::StateRole).toInt());
    }
    return out;
}

} // namespace

class TestSearchExplorer : public QObject
{
    Q_OBJECT

    Device m_device;
    Graph m_fig34;
    ImportResult m_randwire;
    std::unique_ptr<IScheduler> m_ios = createIosScheduler();
    std::shared_ptr<const ScheduleRun> m_small, m_big;

    // Fig. 3.4 considers concurrent execution only: IOS-Parallel unless the caller asks otherwise.
    std::shared_ptr<const ScheduleRun> schedule(const Graph &g, std::map<std::string, std::string> props,
                                                std::optional<SearchSpaceRequest> request, Overrides overrides = {},
                                                std::map<std::string, std::string> options = {{"strategy", "parallel"}})
    {
        ScheduleSetup setup;
        setup.options = std::move(options);
        setup.modelProperties = std::move(props);
        setup.searchSpace = std::move(request);
        setup.overrides = std::move(overrides);
        auto run = scheduleGraph(g, m_device, *m_ios, setup);
        if (!run) {
            qWarning("%s", run.status().str().c_str());
            return nullptr;
        }
        return std::make_shared<const ScheduleRun>(std::move(*run));
    }

    static std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel *model)
    {
        return std::make_unique<QAbstractItemModelTester>(model,
                                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

private slots:
    void initTestCase()
    {
        qRegisterMetaType<std::string>();
        auto device = DeviceRegistry::standard().lookup("nvidia-v100");
        QVERIFY2(device, device.status().str().c_str());
        m_device = *device;
        m_fig34 = fig34();
        m_small = schedule(m_fig34, {}, SearchSpaceRequest{});
        QVERIFY(m_small && m_small->result.searchSpace);
        auto rw = importIosNetwork("randwire");
        QVERIFY2(rw, rw.status().str().c_str());
        m_randwire = std::move(*rw);
        SearchSpaceRequest widest;
        widest.scope = "block3";
        QElapsedTimer timer;
        timer.start();
        m_big = schedule(m_randwire.graph, m_randwire.metadata.properties, widest, {}, {});
        QVERIFY(m_big && m_big->result.searchSpace);
        qInfo("randwire block3 with the explorer on: %lld ms", static_cast<long long>(timer.elapsed()));
        QCOMPARE(m_big->result.searchSpace->tables.size(), std::size_t{1});
        QVERIFY(m_big->result.searchSpace->tables[0].states.size() > 1000);
        QVERIFY(m_big->result.searchSpace->tables[0].complete);
    }

    void modelsPassTheTester()
    {
        // The tester fetches children from inside its handlers of other changes (a reset, a
        // removal) before it clears its own "change in flight" mark (Qt 6.4). So: lazy fetching
        // under the tester on a fresh model, then the filter over a model fetched in full.
        for (const auto &space : {m_small->result.searchSpace, syntheticSpace(3000, 3)}) {
            SearchSpaceModel lazy;
            lazy.setSearchSpace(space);
            lazy.setChunkSize(64);
            auto t0 = tester(&lazy); // fetches as it walks the tree
            QVERIFY(lazy.rowCount(lazy.index(0, 0)) > 0);

            SearchSpaceModel model;
            model.setSearchSpace(space);
            fetchTree(&model, {});
            SearchSpaceFilterModel filter;
            filter.setSearchSpaceModel(&model);
            auto t1 = tester(&model);
            auto t2 = tester(&filter);
            filter.setFilter({QStringLiteral("b"), false, -1});
            filter.setFilter({{}, true, -1});
            filter.setFilter({{}, false, 10});
            filter.setFilter({});
        }
    }

    void fig34TreeHasLevelsStatesAndTransitions()
    {
        SearchSpaceModel model;
        model.setSearchSpace(m_small->result.searchSpace);
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex table = model.index(0, 0);
        QCOMPARE(table.data().toString(), QStringLiteral("block0 (3 units)"));
        QCOMPARE(model.rowCount(table), 0); // lazy: nothing until fetched
        QVERIFY(model.canFetchMore(table));
        model.fetchMore(table);
        QCOMPARE(model.rowCount(table), 4); // levels 3, 2, 1, 0
        QCOMPARE(model.index(0, 0, table).data().toString(), QStringLiteral("level 3"));
        const QModelIndex top = model.index(0, 0, table);
        fetchAll(&model, top);
        const QModelIndex v = model.index(0, 0, top);
        QCOMPARE(v.data().toString(), QStringLiteral("{a, b, c}"));
        QCOMPARE(v.data(SearchSpaceModel::OnPathRole).toBool(), true);
        QCOMPARE(model.index(0, SearchSpaceModel::MarkColumn, top).data().toString(), QStringLiteral("◆"));
        fetchAll(&model, v);
        QCOMPARE(model.rowCount(v), 5);
        // Transitions cheapest first; the first is both the best and the one taken.
        double last = -1;
        for (int r = 0; r < 5; ++r) {
            const QModelIndex tr = model.index(r, 0, v);
            const double total =
                model.index(r, SearchSpaceModel::CostColumn, v).data(SearchSpaceModel::SortRole).toDouble();
            QVERIFY(total >= last);
            last = total;
            QCOMPARE(model.parent(tr), v);
        }
        QCOMPARE(model.index(0, 0, v).data(SearchSpaceModel::ChosenRole).toBool(), true);
        QCOMPARE(model.index(0, SearchSpaceModel::MarkColumn, v).data().toString(), QStringLiteral("✓★"));
        QCOMPARE(model.index(0, SearchSpaceModel::DeltaColumn, v).data().toString(), QStringLiteral("best"));
        QVERIFY(model.index(4, SearchSpaceModel::DeltaColumn, v).data().toString().startsWith(QLatin1Char('+')));
        // Negative twin: no search space, no rows.
        model.setSearchSpace(nullptr);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.canFetchMore(QModelIndex()));
    }

    void fig34LayoutIsTheFigure()
    {
        const SearchSpace::Table &t = m_small->result.searchSpace->tables[0];
        SearchDagMetrics m;
        m.textWidth = [](const QString &s) { return 7.0 * s.size(); };
        const SearchDagLayout l = layoutSearchDag(t, m);
        QVERIFY(l.whole);
        QCOMPARE(l.boxes.size(), std::size_t{6});
        QCOMPARE(l.edges.size(), std::size_t{12});
        // V on top, ∅ at the bottom, rows by size; boxes never overlap.
        auto box = [&](const std::string &label) {
            for (const auto &b : l.boxes)
                if (t.states[static_cast<std::size_t>(b.state)].label == label)
                    return b.rect;
            return QRectF();
        };
        QVERIFY(box("{a, b, c}").bottom() < box("{a, b}").top());
        QCOMPARE(box("{a, b}").top(), box("{a, c}").top());
        QVERIFY(box("{a}").bottom() < box("∅").top());
        for (std::size_t i = 0; i < l.boxes.size(); ++i)
            for (std::size_t j = i + 1; j < l.boxes.size(); ++j)
                QVERIFY(!l.boxes[i].rect.intersects(l.boxes[j].rect));
        for (const auto &b : l.boxes)
            QVERIFY(QRectF(QPointF(0, 0), l.size).contains(b.rect));
        // Negative twin: over the limit only the path is drawn.
        const SearchDagLayout p = layoutSearchDag(t, m, 3);
        QVERIFY(!p.whole);
        QCOMPARE(p.boxes.size(), t.path.size());
        QCOMPARE(p.edges.size(), t.path.size() - 1);
    }

    void bigTablesOpenLazily()
    {
        // RandWire block3 through the explorer.
        SearchExplorer explorer;
        explorer.resize(1400, 820);
        explorer.model()->setChunkSize(64);
        QElapsedTimer timer;
        timer.start();
        explorer.setSearchSpace(m_big);
        explorer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&explorer));
        const qint64 openMs = timer.elapsed();
        qInfo("explorer on %zu states / %zu transitions: %lld ms", m_big->result.searchSpace->tables[0].states.size(),
              m_big->result.searchSpace->tables[0].transitions.size(), static_cast<long long>(openMs));
        QVERIFY2(openMs < 3000, qPrintable(QString::number(openMs)));
        SearchSpaceModel *model = explorer.model();
        const QModelIndex table = model->tableIndexOf(0);
        int biggest = 0, biggestLevel = -1;
        for (int l = 0; l < model->rowCount(table); ++l) {
            const int n = static_cast<int>(model->tableIndex(0).levels[static_cast<std::size_t>(l)].size());
            if (n > biggest) {
                biggest = n;
                biggestLevel = l;
            }
        }
        QVERIFY(biggest > SearchSpaceModel::kDefaultChunk);
        const QModelIndex level = model->index(biggestLevel, 0, table);
        // The tree fetches a chunk per expanded level as it lays out (more if the viewport needs them).
        int fetched = 0;
        for (int l = 0; l < model->rowCount(table); ++l)
            fetched += model->rowCount(model->index(l, 0, table));
        qInfo("biggest level: %d states, %d rows fetched; %d of %zu states fetched", biggest, model->rowCount(level),
              fetched, m_big->result.searchSpace->tables[0].states.size());
        QVERIFY(model->rowCount(level) < biggest);
        QVERIFY(model->canFetchMore(level));
        QVERIFY(fetched < static_cast<int>(m_big->result.searchSpace->tables[0].states.size()) / 2);
        // Scrolling down to the last fetched row of an open level fetches the next chunk.
        QTreeView *tree = explorer.treeView();
        const QModelIndex pxLevel = explorer.filterModel()->mapFromSource(level);
        tree->collapseAll();
        tree->expand(pxLevel);
        QApplication::processEvents();
        const int before = model->rowCount(level);
        QVERIFY(before < biggest);
        tree->scrollTo(explorer.filterModel()->index(before - 1, 0, pxLevel), QAbstractItemView::PositionAtBottom);
        QApplication::processEvents();
        QVERIFY2(model->rowCount(level) > before, qPrintable(QStringLiteral("%1").arg(before)));

        // A synthetic table of 10^5 states opens at once; a level hands out one chunk.
        SearchSpaceModel synthetic;
        const auto space = syntheticSpace(100'000, 4);
        timer.restart();
        synthetic.setSearchSpace(space);
        const QModelIndex st = synthetic.index(0, 0);
        synthetic.fetchMore(st);
        const QModelIndex lv = synthetic.index(3, 0, st);
        synthetic.fetchMore(lv);
        const qint64 synthMs = timer.elapsed();
        qInfo("synthetic 100000 states / 400000 transitions open in %lld ms", static_cast<long long>(synthMs));
        QVERIFY2(synthMs < 2000, qPrintable(QString::number(synthMs)));
        QCOMPARE(synthetic.rowCount(st), 100);
        QCOMPARE(synthetic.rowCount(lv), SearchSpaceModel::kDefaultChunk);
        // Reaching a state deep in a level fetches just up to it.
        const QModelIndex deep = synthetic.stateIndex(0, 3999);
        QVERIFY(deep.isValid());
        QCOMPARE(synthetic.stateOf(deep), 3999);
        QVERIFY(synthetic.rowCount(deep.parent()) < 1000);
    }

    void filtersNarrowCorrectly()
    {
        SearchExplorer explorer;
        explorer.setSearchSpace(m_big);
        SearchSpaceFilterModel *f = explorer.filterModel();
        const SearchSpace::Table &t = m_big->result.searchSpace->tables[0];
        const QModelIndex root = explorer.treeView()->rootIndex();
        QCOMPARE(static_cast<std::size_t>(f->acceptedStates(0)), t.states.size());

        // Text: a unit the path's first stage schedules.
        const auto &first =
            t.transitions[static_cast<std::size_t>(t.states[static_cast<std::size_t>(t.path[0])].choice)];
        const std::string unit = first.label.substr(0, first.label.find_first_of(",| "));
        const QString text = QStringLiteral("/%1/").arg(QString::fromStdString(unit)); // its nodes "block3/<unit>/Op"
        explorer.setFilterText(text);
        const int kept = f->acceptedStates(0);
        QVERIFY(kept > 0 && kept < static_cast<int>(t.states.size()));
        const auto &names = m_big->result.searchSpace->nodeNames;
        auto mentions = [&](const std::vector<NodeId> &nodes) {
            return std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) {
                return QString::fromStdString(names[static_cast<std::size_t>(n)]).contains(text);
            });
        };
        const std::set<int> visible = visibleStates(f, root);
        QCOMPARE(static_cast<int>(visible.size()), kept);
        const auto &ix = explorer.model()->tableIndex(0);
        for (std::size_t s = 0; s < t.states.size(); ++s) {
            bool hit = mentions(t.states[s].nodes);
            for (std::int32_t i : ix.outgoing(static_cast<std::int32_t>(s)))
                hit = hit || mentions(t.transitions[static_cast<std::size_t>(i)].nodes);
            QCOMPARE(visible.count(static_cast<int>(s)) == 1, hit);
        }
        // Negative twin: a name nobody has hides everything but the table.
        explorer.setFilterText(QStringLiteral("no-such-unit"));
        QCOMPARE(f->acceptedStates(0), 0);
        QCOMPARE(f->rowCount(root), 0);
        explorer.setFilterText({});
        QCOMPARE(static_cast<std::size_t>(f->acceptedStates(0)), t.states.size());
    }

    void pathOnlyShowsExactlyThePath()
    {
        SearchExplorer explorer;
        explorer.setSearchSpace(m_big);
        const SearchSpace::Table &t = m_big->result.searchSpace->tables[0];
        explorer.setPathOnly(true);
        const std::set<int> visible = visibleStates(explorer.filterModel(), explorer.treeView()->rootIndex());
        QCOMPARE(visible, std::set<int>(t.path.begin(), t.path.end()));
        // Within 0 %: only states on an optimal schedule, and only best transitions.
        explorer.setPathOnly(false);
        explorer.setWithinPercent(0);
        const std::set<int> optimal = visibleStates(explorer.filterModel(), explorer.treeView()->rootIndex());
        QVERIFY(optimal.size() >= t.path.size());
        for (int s : optimal)
            QVERIFY(explorer.model()->stateDelta(0, s) < 1e-6);
        for (std::size_t i = 0; i < t.transitions.size(); ++i)
            if (explorer.filterModel()->acceptsTransition(0, static_cast<int>(i))) {
                QVERIFY(explorer.model()->transitionDelta(0, static_cast<int>(i)) < 1e-6);
            }
        // Negative twin: a wider margin keeps more.
        explorer.setWithinPercent(10);
        QVERIFY(explorer.filterModel()->acceptedStates(0) > static_cast<int>(optimal.size()));
    }

    void forcingEmitsTheScheduledKey()
    {
        SearchExplorer explorer;
        explorer.resize(1400, 820);
        explorer.setSearchSpace(m_small);
        explorer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&explorer));
        QSignalSpy overrides(&explorer, &SearchExplorer::overrideRequested);
        QSignalSpy nodes(&explorer, &SearchExplorer::nodesSelected);
        const SearchSpace::Table &t = m_small->result.searchSpace->tables[0];
        const int v = t.path.front();
        QCOMPARE(explorer.selectedState(), v);

        // The stage a | ... that is not taken: pick the dearest way on from V.
        const auto &ix = explorer.model()->tableIndex(0);
        const int other = ix.outgoing(v).back();
        const auto &tr = t.transitions[static_cast<std::size_t>(other)];
        explorer.selectTransition(other);
        QVERIFY(!nodes.isEmpty());
        QCOMPARE(nodes.last().at(0).value<std::vector<NodeId>>(), tr.nodes);
        QVERIFY(explorer.forceTransition(other));
        QCOMPARE(overrides.size(), 1);
        const std::string key = overrides.last().at(0).value<std::string>();
        const std::string option = overrides.last().at(1).value<std::string>();
        QCOMPARE(key, m_small->decisions.records().front().key); // the decision asked at V
        QCOMPARE(option, tr.optionId);

        // Double-clicking the transition in the tree does the same.
        const QModelIndex row = explorer.filterModel()->mapFromSource(explorer.model()->transitionIndex(0, other));
        QVERIFY(row.isValid());
        explorer.treeView()->scrollTo(row);
        const QRect r = explorer.treeView()->visualRect(row);
        QTest::mouseClick(explorer.treeView()->viewport(), Qt::LeftButton, {}, r.center());
        QTest::mouseDClick(explorer.treeView()->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(overrides.size(), 2);

        // Replaying with it makes that transition the one taken; the explorer stays on the table.
        auto replay = schedule(m_fig34, {}, SearchSpaceRequest{}, {{key, option}});
        QVERIFY(replay);
        explorer.setSearchSpace(replay);
        const SearchSpace::Table &t2 = replay->result.searchSpace->tables[0];
        const auto &taken =
            t2.transitions[static_cast<std::size_t>(t2.states[static_cast<std::size_t>(t2.path[0])].choice)];
        QCOMPARE(taken.label, tr.label);
        QCOMPARE(explorer.currentTable(), 0);

        // Negative twins: the transition already taken, and one of a state off the path, force nothing.
        const int count = overrides.size();
        QVERIFY(!explorer.forceTransition(t2.states[static_cast<std::size_t>(t2.path[0])].choice));
        const auto off = std::find_if(t2.transitions.begin(), t2.transitions.end(), [&](const auto &x) {
            return !t2.states[static_cast<std::size_t>(x.from)].onPath;
        });
        QVERIFY(off != t2.transitions.end());
        QVERIFY(!explorer.forceTransition(static_cast<int>(off - t2.transitions.begin())));
        QCOMPARE(overrides.size(), count);
    }

    void withoutASearchSpaceItSaysHowToGetOne()
    {
        SearchExplorer explorer;
        auto plain = schedule(m_fig34, {}, std::nullopt);
        QVERIFY(plain && !plain->result.searchSpace);
        explorer.setSearchSpace(plain);
        QVERIFY(!explorer.hasSearchSpace());
        QVERIFY(explorer.hintLabel()->isVisibleTo(&explorer));
        QVERIFY(explorer.hintLabel()->text().contains(QStringLiteral("recorded while this dock is open")));
        explorer.setSearchSpace(m_small); // positive twin
        QVERIFY(explorer.hasSearchSpace());
        QVERIFY(!explorer.hintLabel()->isVisibleTo(&explorer));
    }

    void screenshots()
    {
        // Fig. 3.4 (3): the schedule {a} ; {b, c} — forced here, so ✓ taken and ★ cheapest differ at V.
        const SearchSpace::Table &t0 = m_small->result.searchSpace->tables[0];
        const auto bc = std::find_if(t0.transitions.begin(), t0.transitions.end(),
                                     [&](const auto &x) { return x.from == t0.path.front() && x.label == "b | c"; });
        QVERIFY(bc != t0.transitions.end());
        auto fig = schedule(m_fig34, {}, SearchSpaceRequest{}, {{bc->decisionKey, bc->optionId}});
        QVERIFY(fig);
        QCOMPARE(fig->result.searchSpace->tables[0].path.size(), std::size_t{3}); // {a,b,c} → {a} → ∅
        SearchExplorer small;
        small.resize(1400, 820);
        small.setSearchSpace(fig);
        small.show();
        QVERIFY(QTest::qWaitForWindowExposed(&small));
        QTest::qWait(50);
        QVERIFY(small.grab().save(screenshotPath(QStringLiteral("searchexplorer.png"))));

        SearchExplorer big;
        big.resize(1400, 820);
        big.setSearchSpace(m_big);
        big.show();
        QVERIFY(QTest::qWaitForWindowExposed(&big));
        const SearchSpace::Table &t = m_big->result.searchSpace->tables[0];
        big.selectState(t.path.at(1));
        QTest::qWait(50);
        QVERIFY(big.grab().save(screenshotPath(QStringLiteral("searchexplorer-big.png"))));
    }
};

QTEST_MAIN(TestSearchExplorer)
#include "tst_searchexplorer.moc"
