// OptionsEditor (see optionseditor.h).
#include "views/widgets/optionseditor.h"

#include "core/sched/scheduler.h"
#include "views/models/optionsmodel.h"
#include "views/models/workbenchstate.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

namespace tessera::views {

namespace {

constexpr double kDoubleLimit = 1e15; // QDoubleSpinBox shows every digit of its range

OptionSpec::Kind kindOf(const QModelIndex &index)
{
    return static_cast<OptionSpec::Kind>(index.data(OptionsModel::KindRole).toInt());
}

// The editor per option kind; bold for values that differ from the default,
// red for stored text that does not parse.
class OptionsDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        if (index.column() != OptionsModel::ValueColumn)
            return nullptr;
        const double lo = index.data(OptionsModel::MinimumRole).toDouble();
        const double hi = index.data(OptionsModel::MaximumRole).toDouble();
        switch (kindOf(index)) {
        case OptionSpec::Kind::Int: {
            const double clo = std::ceil(lo), chi = std::floor(hi);
            if (clo >= double(INT_MIN) && chi <= double(INT_MAX) && clo <= chi) {
                auto *spin = new QSpinBox(parent);
                spin->setFrame(false);
                spin->setRange(static_cast<int>(clo), static_cast<int>(chi));
                spin->setAccelerated(true);
                return spin;
            }
            auto *edit = new QLineEdit(parent); // the model checks the range and says so
            edit->setFrame(false);
            edit->setValidator(
                new QRegularExpressionValidator(QRegularExpression(QStringLiteral("-?\\d{1,19}")), edit));
            return edit;
        }
        case OptionSpec::Kind::Double: {
            auto *spin = new QDoubleSpinBox(parent);
            spin->setFrame(false);
            spin->setDecimals(6);
            spin->setRange(std::max(lo, -kDoubleLimit), std::min(hi, kDoubleLimit));
            spin->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
            return spin;
        }
        case OptionSpec::Kind::Enum: {
            auto *combo = new QComboBox(parent);
            combo->addItems(index.data(OptionsModel::ChoicesRole).toStringList());
            // A pick is an edit: commit it without waiting for focus to leave.
            connect(combo, &QComboBox::activated, this, [this, combo] {
                emit const_cast<OptionsDelegate *>(this)->commitData(combo);
                emit const_cast<OptionsDelegate *>(this)->closeEditor(combo);
            });
            return combo;
        }
        case OptionSpec::Kind::String: {
            auto *edit = new QLineEdit(parent);
            edit->setFrame(false);
            return edit;
        }
        case OptionSpec::Kind::Bool: return nullptr; // the check box edits it
        }
        return QStyledItemDelegate::createEditor(parent, option, index);
    }

    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        const QVariant value = index.data(Qt::EditRole);
        if (auto *spin = qobject_cast<QSpinBox *>(editor))
            spin->setValue(static_cast<int>(value.toLongLong()));
        else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(editor))
            dspin->setValue(value.toDouble());
        else if (auto *combo = qobject_cast<QComboBox *>(editor))
            combo->setCurrentIndex(std::max(0, combo->findText(value.toString())));
        else if (auto *edit = qobject_cast<QLineEdit *>(editor))
            edit->setText(index.data(Qt::DisplayRole).toString());
        else
            QStyledItemDelegate::setEditorData(editor, index);
    }

    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        if (auto *spin = qobject_cast<QSpinBox *>(editor)) {
            spin->interpretText();
            model->setData(index, QVariant::fromValue(static_cast<qlonglong>(spin->value())));
        } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(editor)) {
            dspin->interpretText();
            model->setData(index, dspin->value());
        } else if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            model->setData(index, combo->currentText());
        } else if (auto *edit = qobject_cast<QLineEdit *>(editor)) {
            model->setData(index, edit->text());
        } else {
            QStyledItemDelegate::setModelData(editor, model, index);
        }
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize s = QStyledItemDelegate::sizeHint(option, index);
        s.rheight() += 6; // room for the in-place editors
        if (index.column() == OptionsModel::ValueColumn)
            s.setWidth(std::max(s.width(), 110)); // a spin box with its arrows
        return s;
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const int column = index.column();
        if ((column == OptionsModel::KeyColumn || column == OptionsModel::ValueColumn) &&
            index.data(OptionsModel::ModifiedRole).toBool())
            option->font.setBold(true);
        if (column == OptionsModel::ValueColumn && index.data(OptionsModel::InvalidRole).toBool())
            option->palette.setColor(QPalette::Text, QColor(0xc6, 0x28, 0x28));
        if (column == OptionsModel::DefaultColumn || column == OptionsModel::HelpColumn)
            option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
    }
};

} // namespace

OptionsEditor::OptionsEditor(WorkbenchState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_model(new OptionsModel(this))
{
    setObjectName(QStringLiteral("optionsEditor"));

    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("optionsTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("optionsSummary"));
    m_summary->setWordWrap(true);
    m_paper = new QLabel(this);
    m_paper->setObjectName(QStringLiteral("optionsPaper"));
    m_paper->setWordWrap(true);
    QPalette dim = m_paper->palette();
    dim.setColor(QPalette::WindowText, dim.color(QPalette::PlaceholderText));
    m_paper->setPalette(dim);
    for (QLabel *l : {m_title, m_summary, m_paper})
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("optionsView"));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new OptionsDelegate(m_view));
    m_view->verticalHeader()->hide();
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                            QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
    m_view->setShowGrid(false);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // Help elides instead
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("optionsError"));
    m_error->setWordWrap(true);
    QPalette red = m_error->palette();
    red.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    m_error->setPalette(red);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reset = new QPushButton(tr("Reset to defaults"), this);
    m_reset->setObjectName(QStringLiteral("optionsReset"));
    m_reset->setToolTip(tr("Forget every option set here; the scheduler's defaults apply"));

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_error, 1);
    bottom->addWidget(m_reset, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    layout->addWidget(m_paper);
    layout->addSpacing(2);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);

    connect(m_reset, &QPushButton::clicked, m_model, &OptionsModel::resetToDefaults);
    connect(m_model, &OptionsModel::userOptionsChanged, this, &OptionsEditor::onUserOptionsChanged);
    connect(m_model, &OptionsModel::editRejected, this, &OptionsEditor::showError);
    connect(m_state, &WorkbenchState::setupChanged, this, &OptionsEditor::reload);

    m_scheduler = QStringLiteral("\x01"); // nothing loaded yet: reload() loads in full
    reload();
}

const IScheduler *OptionsEditor::scheduler(const QString &name) const
{
    const SchedulerRegistry *registry = m_state->schedulers();
    return registry ? registry->find(name.toStdString()) : nullptr;
}

void OptionsEditor::reload()
{
    if (m_applying)
        return; // our own edit coming back: the model already has it
    const QString name = m_state->schedulerName();
    if (name != m_scheduler) {
        const IScheduler *found = scheduler(name);
        m_scheduler = name;
        m_model->setSpecs(found ? found->info().options : std::vector<OptionSpec>{}, m_state->options());
        showHeader();
        fitColumns();
    } else if (m_state->options() != m_model->userOptions()) {
        m_model->setUserOptions(m_state->options()); // keeps the current cell
    } else {
        return;
    }
    showError(m_model->validate());
}

void OptionsEditor::showHeader()
{
    const IScheduler *found = scheduler(m_scheduler);
    if (!found) {
        m_title->setText(m_scheduler.isEmpty() ? tr("No scheduler selected")
                                               : tr("Unknown scheduler '%1'").arg(m_scheduler));
        m_summary->clear();
        m_paper->clear();
        m_summary->hide();
        m_paper->hide();
        m_view->hide();
        return;
    }
    const SchedulerInfo &info = found->info();
    m_title->setText(QString::fromStdString(info.title.empty() ? info.name : info.title));
    QString summary = QString::fromStdString(info.summary);
    if (info.options.empty())
        summary += (summary.isEmpty() ? QString() : QStringLiteral(" — ")) + tr("no options.");
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());
    m_paper->setText(info.paper.empty() ? QString() : tr("Implements %1").arg(QString::fromStdString(info.paper)));
    m_paper->setVisible(!info.paper.empty());
    m_view->setVisible(!info.options.empty());
}

void OptionsEditor::fitColumns()
{
    m_view->resizeColumnsToContents();
    QHeaderView *header = m_view->horizontalHeader();
    for (int c : {OptionsModel::KeyColumn, OptionsModel::ValueColumn, OptionsModel::DefaultColumn})
        header->resizeSection(c, std::min(header->sectionSize(c) + 12, 260));
}

void OptionsEditor::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setToolTip(message);
    m_error->setVisible(!message.isEmpty());
    m_reset->setEnabled(!m_model->userOptions().empty());
}

void OptionsEditor::onUserOptionsChanged()
{
    m_applying = true;
    m_state->setOptions(m_model->userOptions()); // the app's scheduler replays
    m_applying = false;
    showError(m_model->validate());
}

} // namespace tessera::views
