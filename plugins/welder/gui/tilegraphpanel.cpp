#include "plugins/welder/gui/tilegraphpanel.h"

#include "plugins/welder/gui/tilegraphview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

namespace tessera::welder {

namespace {

QString megabytes(double bytes)
{
    return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 2);
}

} // namespace

TrafficByLevelView::TrafficByLevelView(QWidget *parent) : QTableWidget(parent)
{
    setColumnCount(4);
    setHorizontalHeaderLabels({QStringLiteral("Level"), QStringLiteral("Before connecting"),
                               QStringLiteral("After connecting"), QStringLiteral("Change")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
}

void TrafficByLevelView::setRun(const ScheduleRun &run)
{
    // Levels in the order of the connect decisions' options (slowest first), else by name.
    std::vector<std::string> levels;
    for (const DecisionRecord &r : run.decisions.records())
        if (r.role == "welder.connect") {
            for (const DecisionOption &o : r.options)
                levels.push_back(o.id);
            break;
        }
    for (const auto &[key, value] : run.result.stats)
        if (key.rfind("traffic_before_", 0) == 0) {
            const std::string level = key.substr(15);
            if (std::find(levels.begin(), levels.end(), level) == levels.end())
                levels.push_back(level);
        }
    const auto &stats = run.result.stats;
    setRowCount(0);
    for (const std::string &level : levels) {
        auto b = stats.find("traffic_before_" + level), a = stats.find("traffic_after_" + level);
        if (b == stats.end() || a == stats.end())
            continue;
        const int row = rowCount();
        insertRow(row);
        setItem(row, 0, new QTableWidgetItem(QString::fromStdString(level)));
        setItem(row, 1, new QTableWidgetItem(megabytes(b->second)));
        setItem(row, 2, new QTableWidgetItem(megabytes(a->second)));
        const double change = b->second > 0 ? (a->second - b->second) / b->second * 100.0 : 0.0;
        setItem(row, 3,
                new QTableWidgetItem(QStringLiteral("%1%2 %").arg(change > 0 ? "+" : "").arg(change, 0, 'f', 1)));
        for (int c = 1; c < 4; ++c)
            item(row, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
}

TileGraphPanel::TileGraphPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Group by:"), this));
    m_group = new QComboBox(this);
    bar->addWidget(m_group);
    bar->addStretch(1);
    layout->addLayout(bar);
    m_scroll = new QScrollArea(this);
    m_view = new TileGraphView(m_scroll);
    m_scroll->setWidget(m_view);
    m_scroll->setWidgetResizable(false);
    layout->addWidget(m_scroll, 1);
    m_traffic = new TrafficByLevelView(this);
    m_traffic->setMaximumHeight(120);
    layout->addWidget(m_traffic);
    connect(m_group, &QComboBox::currentIndexChanged, this, [this](int i) { m_view->setGroupDepth(i - 1); });
}

void TileGraphPanel::setRun(const Graph &graph, const ScheduleRun &run, std::function<void(NodeId)> selectNode)
{
    m_view->setRun(graph, run);
    m_view->setSelectNode(std::move(selectNode));
    const int previous = m_group->currentIndex();
    m_group->blockSignals(true);
    m_group->clear();
    m_group->addItem(QStringLiteral("nothing"));
    const QStringList &levels = m_view->levelNames();
    for (int l = 0; l + 1 < levels.size(); ++l)
        m_group->addItem(l == 0 ? QStringLiteral("L0 kernels (%1)").arg(levels[0])
                                : QStringLiteral("L0 → L%1 (%2)").arg(l).arg(levels[l]));
    m_group->setCurrentIndex(previous >= 0 && previous < m_group->count() ? previous
                                                                          : std::min(1, m_group->count() - 1));
    m_group->blockSignals(false);
    m_view->setGroupDepth(m_group->currentIndex() - 1);
    m_traffic->setRun(run);
}

} // namespace tessera::welder
