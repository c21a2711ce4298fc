// SearchPanel: the Search dock — a query line (see searchmodel.h for the
// syntax), previous/next buttons with a "3 of 17" counter, and the list of
// matching nodes. Typing re-runs the query after a short pause; Enter, the
// buttons and F3/Shift+F3 step through the matches; clicking a result makes
// it current. The panel only reports; setState() makes it follow a
// WorkbenchState's model, with the matches as the state's highlight and the
// current match as its selection.
#pragma once

#include "views/models/modeldata.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QStackedWidget;
class QTimer;
class QToolButton;
class QTreeView;

namespace tessera::views {

class SearchModel;
class WorkbenchState;

class SearchPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPanel(QWidget *parent = nullptr);

    void setModelData(std::shared_ptr<const ModelData> data); // keeps the query
    void setState(WorkbenchState *state);                     // it must outlive the panel
    void setQuery(const QString &query);                      // runs it at once
    QString query() const;
    const std::vector<NodeId> &matches() const;
    NodeId currentMatch() const { return m_current; } // kInvalidId if none
    QLineEdit *lineEdit() const { return m_edit; }
    SearchModel *model() const { return m_model; }

public slots:
    void next();
    void previous();
    void focusQuery(); // focus and select the query text (Ctrl+F)

signals:
    void matchesChanged(const std::vector<tessera::NodeId> &matches);
    void currentMatchChanged(tessera::NodeId node);

private:
    void runQuery();
    void step(int delta);
    void setCurrentRow(int row);
    void updateCounter();

    SearchModel *m_model;
    QLineEdit *m_edit;
    QToolButton *m_prev;
    QToolButton *m_next;
    QLabel *m_counter;
    QTreeView *m_results;
    QStackedWidget *m_stack; // a usage hint while the query is empty, else the results
    QTimer *m_debounce;
    NodeId m_current = kInvalidId;
};

} // namespace tessera::views
