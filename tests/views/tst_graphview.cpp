// GraphView and MiniMap as a user sees them: a residual chain shown in a real
// window (xvfb-run) or offscreen, laid out off the GUI thread, screenshot
// saved to <build>/screenshots/, expand/collapse, click selection, search
// highlight + centring, overlays, export, and the minimap's navigation.
#include "views/models/layoutsynthetic.h"
#include "views/widgets/graphview.h"
#include "views/widgets/graphviewitems.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace tessera;

namespace {

// Runs `action` and waits for the layout it triggers to land.
template <typename F> bool layoutAfter(GraphView &v, F &&action, int timeoutMs = 15000)
{
    QSignalSpy spy(&v, &GraphView::layoutFinished);
    action();
    return spy.wait(timeoutMs) || !spy.isEmpty();
}

// Pixels that differ clearly from the top-left (background) pixel.
int inkPixels(const QImage &img)
{
    const QColor bg = img.pixelColor(0, 0);
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            n += std::abs(c.red() - bg.red()) + std::abs(c.green() - bg.green()) + std::abs(c.blue() - bg.blue()) > 24;
        }
    return n;
}

// <build>/screenshots/<TESSERA_SCREENSHOT or graphview.png>, with "-suffix" before the extension.
QString screenshotPath(const QString &suffix)
{
    const QString dir = QStringLiteral(TESSERA_BINARY_DIR "/screenshots");
    QDir().mkpath(dir);
    QString name = qEnvironmentVariable("TESSERA_SCREENSHOT", QStringLiteral("graphview.png"));
    if (!suffix.isEmpty())
        name.insert(name.lastIndexOf(QLatin1Char('.')), QLatin1Char('-') + suffix);
    return dir + QLatin1Char('/') + name;
}

GroupId groupByPath(const Hierarchy &h, const std::string &path)
{
    for (std::size_t g = 0; g < h.groups().size(); ++g)
        if (h.group(static_cast<GroupId>(g)).path == path)
            return static_cast<GroupId>(g);
    return -1;
}

} // namespace

class TestGraphView : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_view = std::make_unique<GraphView>();
        m_view->resize(1000, 900);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        auto s = layout::residualChain(3);
        m_graph = s.graph;
        QVERIFY(layoutAfter(*m_view, [&] { m_view->setGraph(s.graph, std::move(s.hierarchy)); }));
        QVERIFY(!m_view->isLayoutPending());
    }
    void cleanup() { m_view.reset(); }

    void screenshotIsNotBlank()
    {
        // Everything fits the auto-expand budget: all blocks open.
        for (GroupId g = 1; g < static_cast<GroupId>(m_view->hierarchy().groups().size()); ++g)
            QVERIFY(m_view->isExpanded(g));
        // One of each: expanded and collapsed blocks, a search hit inside a collapsed
        // block (badge), a selected node with its edges, the opaque vendor op.
        const Hierarchy &h = m_view->hierarchy();
        QVERIFY(layoutAfter(*m_view, [&] {
            m_view->collapseGroup(groupByPath(h, "block2"));
            m_view->collapseGroup(groupByPath(h, "block3"));
        }));
        m_view->setHighlighted({m_graph->findNode("block2/conv1"), m_graph->findNode("block2/relu")});
        m_view->selectNode(m_graph->findNode("block1/add"));
        m_view->fitAll();
        QTest::qWait(50);
        const QImage img = m_view->grab().toImage();
        QVERIFY(img.save(screenshotPath({})));
        const int ink = inkPixels(img);
        QVERIFY2(ink > img.width() * img.height() / 50, qPrintable(QStringLiteral("only %1 drawn pixels").arg(ink)));
    }

    // Issue 18: long edges from hub nodes (BERT's attention mask feeds every
    // layer) are drawn as stubs; the residual chain has no hub, so none.
    void hubEdgesAreStubs()
    {
        QCOMPARE(m_view->stubbedEdgeCount(), 0);
        auto s = layout::bertBaseLike(12);
        QVERIFY(layoutAfter(*m_view, [&] { m_view->setGraph(s.graph, std::move(s.hierarchy)); }));
        QVERIFY2(m_view->stubbedEdgeCount() > 0, "no hub edge drawn as stubs in BERT");
        const auto graph = m_view->graph();
        NodeId add = kInvalidId;
        for (NodeId n = 0; n < static_cast<NodeId>(graph->nodeCount()) && add == kInvalidId; ++n)
            if (graph->node(n).name.find("layer.4") != std::string::npos && graph->node(n).name.ends_with("scores/Add"))
                add = n;
        QVERIFY(add != kInvalidId);
        m_view->resetZoom();
        m_view->centerOnNode(add);
        QTest::qWait(50);
        QVERIFY(m_view->grab().save(screenshotPath(QStringLiteral("hubs"))));
    }

    void emptyViewIsBlank()
    {
        m_view->clear();
        QTest::qWait(20);
        const QImage img = m_view->grab().toImage();
        QCOMPARE(inkPixels(img), 0);
        QCOMPARE(m_view->visibleItemCount(), 0);
    }

    void queriesWhileANewGraphIsLaidOut()
    {
        auto s = layout::resnet50Like();
        const auto graph = s.graph;
        QSignalSpy spy(m_view.get(), &GraphView::layoutFinished);
        m_view->setGraph(graph, std::move(s.hierarchy));
        // Before the layout lands nothing is on screen, and asking must be safe.
        QVERIFY(m_view->isLayoutPending());
        QVERIFY(m_view->nodeRect(graph->findNode("stem/conv1")).isEmpty());
        for (GroupId g = 0; g < 4; ++g)
            QVERIFY(m_view->groupRect(g).isEmpty());
        m_view->centerOnNode(graph->findNode("layer3/layer3.4/conv2"));
        QVERIFY(spy.wait(15000));
        QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLayoutPending(), 15000);
        QVERIFY(!m_view->nodeRect(graph->findNode("layer3/layer3.4/conv2")).isEmpty());
    }

    void expandCollapseChangesItems()
    {
        QVERIFY(layoutAfter(*m_view, [&] { m_view->collapseAll(); }));
        const int collapsed = m_view->visibleItemCount();
        QCOMPARE(collapsed, 1); // the root level only
        const GroupId block2 = groupByPath(m_view->hierarchy(), "block2");
        QVERIFY(m_view->nodeRect(m_graph->findNode("block2/conv1")).isEmpty());
        QVERIFY(layoutAfter(*m_view, [&] { m_view->expandGroup(block2); }));
        QCOMPARE(m_view->visibleItemCount(), collapsed + 1);
        QVERIFY(!m_view->nodeRect(m_graph->findNode("block2/conv1")).isEmpty());
        QVERIFY(m_view->groupRect(block2).contains(m_view->nodeRect(m_graph->findNode("block2/conv1"))));
        QVERIFY(layoutAfter(*m_view, [&] { m_view->collapseGroup(block2); }));
        QCOMPARE(m_view->visibleItemCount(), collapsed);
    }

    void doubleClickTogglesGroup()
    {
        QVERIFY(layoutAfter(*m_view, [&] { m_view->collapseAll(); }));
        const GroupId block1 = groupByPath(m_view->hierarchy(), "block1");
        const QPoint at = m_view->mapFromScene(m_view->groupRect(block1).center());
        QVERIFY(layoutAfter(*m_view, [&] { QTest::mouseDClick(m_view->viewport(), Qt::LeftButton, {}, at); }));
        QVERIFY(m_view->isExpanded(block1));
    }

    void rapidRequestsEndInTheLastState()
    {
        const GroupId b1 = groupByPath(m_view->hierarchy(), "block1");
        const GroupId b3 = groupByPath(m_view->hierarchy(), "block3");
        QSignalSpy spy(m_view.get(), &GraphView::layoutFinished);
        m_view->collapseAll();
        m_view->expandGroup(b1);
        m_view->expandGroup(b3);
        m_view->collapseGroup(b1);
        QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLayoutPending() && !spy.isEmpty(), 15000);
        QCOMPARE(m_view->visibleItemCount(), 2); // root + block3: stale results were dropped
        QVERIFY(!m_view->groupRect(b1).isEmpty());
        QVERIFY(!m_view->nodeRect(m_graph->findNode("block3/add")).isEmpty());
        QVERIFY(m_view->nodeRect(m_graph->findNode("block1/add")).isEmpty());
    }

    void clickSelectsNode()
    {
        QSignalSpy nodes(m_view.get(), &GraphView::nodeSelected);
        const NodeId n = m_graph->findNode("block2/conv2");
        m_view->centerOn(m_view->nodeRect(n).center());
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, m_view->mapFromScene(m_view->nodeRect(n).center()));
        QCOMPARE(nodes.count(), 1);
        QCOMPARE(nodes.at(0).at(0).value<NodeId>(), n);
        QCOMPARE(m_view->selectedNode(), n);
    }

    void clickOnBackgroundSelectsNothing()
    {
        QSignalSpy nodes(m_view.get(), &GraphView::nodeSelected);
        QSignalSpy groups(m_view.get(), &GraphView::groupSelected);
        const QRectF scene = m_view->scene()->sceneRect();
        m_view->centerOn(scene.topLeft());
        QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {},
                          m_view->mapFromScene(scene.topLeft() + QPointF(5, 5)));
        QCOMPARE(nodes.count(), 0);
        QCOMPARE(groups.count(), 0);
        QCOMPARE(m_view->selectedNode(), kInvalidId);
    }

    void dragPansInsteadOfSelecting()
    {
        QSignalSpy nodes(m_view.get(), &GraphView::nodeSelected);
        m_view->resetZoom();
        const NodeId n = m_graph->findNode("block2/conv2");
        m_view->centerOn(m_view->nodeRect(n).center());
        const QPoint start = m_view->mapFromScene(m_view->nodeRect(n).center());
        const int before = m_view->verticalScrollBar()->value();
        QTest::mousePress(m_view->viewport(), Qt::LeftButton, {}, start);
        QTest::mouseMove(m_view->viewport(), start + QPoint(0, -40));
        QTest::mouseMove(m_view->viewport(), start + QPoint(0, -80));
        QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, {}, start + QPoint(0, -80));
        QCOMPARE(nodes.count(), 0);
        QVERIFY(m_view->verticalScrollBar()->value() > before);
    }

    void centerOnHiddenNodeExpandsToIt()
    {
        QVERIFY(layoutAfter(*m_view, [&] { m_view->collapseAll(); }));
        m_view->resetZoom();
        m_view->zoomIn(); // the expanded scene must be larger than the viewport to be scrolled
        m_view->zoomIn();
        m_view->zoomIn();
        const NodeId n = m_graph->findNode("block3/conv2_bn");
        QVERIFY(m_view->nodeRect(n).isEmpty());
        QVERIFY(layoutAfter(*m_view, [&] { m_view->centerOnNode(n); }));
        const QRectF r = m_view->nodeRect(n);
        QVERIFY(!r.isEmpty());
        const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
        QVERIFY2(QLineF(centre, r.center()).length() < 30, "the node is not centred");
    }

    void zoomKeysAndFit()
    {
        m_view->resetZoom();
        QCOMPARE(m_view->zoomLevel(), 1.0);
        QTest::keyClick(m_view.get(), Qt::Key_Plus);
        QVERIFY(m_view->zoomLevel() > 1.0);
        QTest::keyClick(m_view.get(), Qt::Key_Minus);
        QTest::keyClick(m_view.get(), Qt::Key_Minus);
        QVERIFY(m_view->zoomLevel() < 1.0);
        m_view->zoomIn();
        m_view->zoomIn();
        m_view->zoomIn();
        m_view->fitAll();
        m_view->grab().save(screenshotPath(QStringLiteral("fit")));
        const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
        for (const char *name : {"stem/conv1", "fc"})
            QVERIFY2(visible.contains(m_view->nodeRect(m_graph->findNode(name))), name);
    }

    void overlayChangesColoursAndHasLegend()
    {
        const QImage plain = m_view->grab().toImage();
        std::vector<double> metric(m_graph->nodeCount());
        for (std::size_t i = 0; i < metric.size(); ++i)
            metric[i] = std::pow(10.0, static_cast<double>(i % 5));
        m_view->setOverlay(metric, QStringLiteral("latency (µs)"), true);
        QVERIFY(m_view->hasOverlay());
        QTest::qWait(20);
        const QImage coloured = m_view->grab().toImage();
        QVERIFY(coloured != plain);
        coloured.save(screenshotPath(QStringLiteral("overlay")));
        m_view->clearOverlay();
        QVERIFY(!m_view->hasOverlay());
    }

    void overlayWithoutUsableValuesIsNoOverlay()
    {
        m_view->setOverlay(std::vector<double>(m_graph->nodeCount(), -1.0), QStringLiteral("x"), true);
        QVERIFY(!m_view->hasOverlay()); // log scale of non-positive values: nothing to colour
    }

    void exportsWholeScene()
    {
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("g.svg")), png = dir.filePath(QStringLiteral("g.png"));
        m_view->zoomIn(); // export does not depend on the viewport
        QVERIFY(m_view->exportSvg(svg));
        QVERIFY(m_view->exportPng(png, 2.0));
        QVERIFY(QFileInfo(svg).size() > 1000);
        const QImage img(png);
        QVERIFY(!img.isNull());
        const QRectF bounds = m_view->scene()->sceneRect();
        QVERIFY(img.width() >= bounds.width() * 1.5);
        QVERIFY(inkPixels(img) > img.width() * img.height() / 50);
    }

    void svgCarriesLabelsAndFlops()
    {
        QTemporaryDir dir;
        const QString plain = dir.filePath(QStringLiteral("plain.svg")),
                      flops = dir.filePath(QStringLiteral("flops.svg"));
        QVERIFY(layoutAfter(*m_view, [&] { m_view->collapseGroup(groupByPath(m_view->hierarchy(), "block3")); }));
        QVERIFY(m_view->exportSvg(plain));
        m_view->setNodeFlops(std::vector<double>(m_graph->nodeCount(), 1.5e9));
        QVERIFY(m_view->exportSvg(flops));
        const auto read = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        const QString a = read(plain), b = read(flops);
        QVERIFY(a.contains(QLatin1String("BatchNormalization")));
        QVERIFY(a.contains(QLatin1String("block3")));
        QVERIFY(!a.contains(QLatin1String("FLOPs")));
        QVERIFY(b.contains(QLatin1String("10.5 GFLOPs"))); // block3's 7 nodes
    }

    void exportOfEmptyViewFails()
    {
        QTemporaryDir dir;
        m_view->clear();
        QVERIFY(!m_view->exportSvg(dir.filePath(QStringLiteral("e.svg"))));
        QVERIFY(!m_view->exportPng(dir.filePath(QStringLiteral("e.png"))));
    }

    // Issue 18 item 4: a narrow group header drops whole parts ("3 nodes"), never shows "3 nodes ...".
    void narrowGroupHeadersDropWholeParts()
    {
        const QFontMetricsF m(QApplication::font());
        const QStringList parts{QStringLiteral("3 nodes"), QStringLiteral("359 MFLOPs")};
        const QString sep = QStringLiteral("  ·  ");
        const qreal both = m.horizontalAdvance(parts.join(sep)), first = m.horizontalAdvance(parts.front());
        QCOMPARE(fitWholeParts(parts, sep, both + 1, m), parts.join(sep));
        QCOMPARE(fitWholeParts(parts, sep, (both + first) / 2, m), QStringLiteral("3 nodes"));
    }
    // Negative twin: only a first part that cannot fit alone is elided.
    void aFirstPartTooWideIsElided()
    {
        const QFontMetricsF m(QApplication::font());
        const QStringList parts{QStringLiteral("123456 nodes"), QStringLiteral("1.00 GFLOP")};
        const QString shown = fitWholeParts(parts, QStringLiteral(" · "), m.horizontalAdvance(parts.front()) / 2, m);
        QVERIFY(shown.endsWith(QChar(0x2026)));
        QVERIFY(!shown.contains(QStringLiteral("GFLOP")));
        QCOMPARE(fitWholeParts({}, QStringLiteral(" · "), 100, m), QString());
    }

    void miniMapShowsSceneAndNavigates()
    {
        MiniMap map(m_view.get());
        map.resize(220, 160);
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        m_view->resetZoom();
        m_view->zoomIn();
        QTest::qWait(20);
        const QImage shot = map.grab().toImage();
        shot.save(screenshotPath(QStringLiteral("minimap")));
        QVERIFY(inkPixels(shot) > 500);
        const QPointF before = m_view->mapToScene(m_view->viewport()->rect().center());
        QTest::mouseClick(&map, Qt::LeftButton, {}, QPoint(110, 150));
        const QPointF after = m_view->mapToScene(m_view->viewport()->rect().center());
        QVERIFY(after.y() > before.y()); // the bottom of the map is the end of the graph
    }

private:
    std::unique_ptr<GraphView> m_view;
    std::shared_ptr<const Graph> m_graph;
};

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
