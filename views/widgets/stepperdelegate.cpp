// StepperDelegate (see stepperdelegate.h).
#include "views/widgets/stepperdelegate.h"

namespace tessera::views {

StepperDelegate::StepperDelegate(Styler styler, QObject *parent)
    : QStyledItemDelegate(parent), m_styler(std::move(styler))
{}

void StepperDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (m_styler)
        m_styler(*option, index);
}

} // namespace tessera::views
