// The DP explorer's two drawings (see searchexplorer.h), painted from a
// SearchSpaceModel table:
//  - SearchNeighbourhoodView: a state's ways on — its outgoing transitions
//    cheapest first as bars ∝ total cost (stage cost solid, the rest after it
//    lighter; ✓ the one taken, ★ the cheapest); a click selects one, a
//    double-click forces it;
//  - SearchDagView: the table in the style of ios thesis Fig. 3.4 (2) — states
//    as boxes by level, transitions as curves labelled with their stage, the
//    path in the highlight colour — laid out by layoutSearchDag
//    (views/models/searchdaglayout.h); a click selects a state.
// They report through the std::function members; the explorer owns the rest.
#pragma once

#include "views/models/searchdaglayout.h"
#include "views/models/searchspacemodel.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QWidget>

#include <functional>
#include <vector>

class QMouseEvent;
class QPaintEvent;

namespace tessera::views {

// The explorer's palette, shared by the drawings and the explorer's labels.
namespace explorercolors {
QColor pathColor(); // the path, the transition taken
QColor pathInk();   // text on the path
QColor pathFill();
QColor selectColor();
QColor edgeGrey();
QColor boxBorder();
QColor mutedInk();
QColor stageBar();
QColor restBar();
QColor chosenStageBar();
QColor chosenRestBar();
QColor bestInk();
QFont smaller(QFont f, double by = 1); // by points, at least 6 pt
} // namespace explorercolors

class SearchNeighbourhoodView final : public QWidget
{
public:
    std::function<void(int)> onSelect, onForce;

    explicit SearchNeighbourhoodView(QWidget *parent) : QWidget(parent)
    {
        setMinimumHeight(160);
        setMouseTracking(false);
    }

    void set(const SearchSpaceModel *model, int table, int state, int transition);

protected:
    static constexpr double kRow = 22, kHeader = 62, kFooter = 22;

    void paintEvent(QPaintEvent *) override;

    int rowAt(const QPointF &pos) const;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;

private:
    struct Row {
        QRectF rect;
        int transition;
    };
    const SearchSpaceModel *m_model = nullptr;
    int m_table = -1, m_state = -1, m_transition = -1;
    std::vector<Row> m_rows;
};

class SearchDagView final : public QWidget
{
public:
    std::function<void(int)> onSelectState;

    explicit SearchDagView(QWidget *parent) : QWidget(parent) { setBackgroundRole(QPalette::Base); }

    void setTable(const SearchSpaceModel *model, int table);
    void setSelection(int state, int transition);
    const SearchDagLayout &layout() const { return m_layout; }
    QSize sizeHint() const override { return m_layout.size.toSize().expandedTo(QSize(200, 120)); }

protected:
    // Centred; a small table is drawn up to 1.5× larger to use the room.
    QTransform transform() const;

    void paintEvent(QPaintEvent *) override;

    void mousePressEvent(QMouseEvent *e) override;

private:
    const SearchSpaceModel *m_model = nullptr;
    int m_table = -1, m_state = -1, m_transition = -1;
    SearchDagLayout m_layout;
};

} // namespace tessera::views
