// OptionsEditor: the scheduler's self-description and its typed options for
// the workbench — a header with the scheduler's title, one-line summary and
// the paper section it implements (SchedulerInfo), a table of OptionsModel
// (option, value, default, help) edited in place with a spin box (Int that
// fits an int; wider integers get a validated line edit), a double spin box
// (Double), a combo box (Enum), a line edit (String) or the check box (Bool),
// a "Reset to defaults" button and a one-line error label that shows why an
// edit was rejected.
//
// It follows a WorkbenchState: setupChanged() (scheduler or options
// changed) reloads the specs from the state's scheduler registry and its
// option text; an accepted edit calls WorkbenchState::setOptions(), and the
// app's scheduler replays the schedule. The editor's own edits come back
// through setupChanged() unchanged and do not reset the view's current cell.
// The state must outlive the editor.
#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace tessera {
class IScheduler;
}

namespace tessera::views {

class OptionsModel;
class WorkbenchState;

class OptionsEditor final : public QWidget
{
    Q_OBJECT
public:
    explicit OptionsEditor(WorkbenchState *state, QWidget *parent = nullptr);

    OptionsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *errorLabel() const { return m_error; }
    QPushButton *resetButton() const { return m_reset; }
    QString loadedScheduler() const { return m_scheduler; } // empty when none is known

    // Re-reads the scheduler's specs and the state's options (done on
    // setupChanged(); public for callers that changed the registry).
    void reload();

private:
    void showHeader();
    void showError(const QString &message);
    void fitColumns();
    void onUserOptionsChanged();

    const IScheduler *scheduler(const QString &name) const; // null when unknown

    WorkbenchState *m_state;
    OptionsModel *m_model;
    QLabel *m_title;
    QLabel *m_summary;
    QLabel *m_paper;
    QTableView *m_view;
    QLabel *m_error;
    QPushButton *m_reset;
    QString m_scheduler;
    bool m_applying = false; // our own setOptions() is on its way back
};

} // namespace tessera::views
