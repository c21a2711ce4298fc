// PropertyView (see propertyview.h).
#include "views/widgets/propertyview.h"

#include "views/models/propertymodel.h"

#include <QHeaderView>
#include <QStyledItemDelegate>

namespace tessera::views {

namespace {
class SectionDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (!index.parent().isValid())
            option->font.setBold(true);
    }
};
} // namespace

PropertyView::PropertyView(QWidget *parent) : QTreeView(parent)
{
    setItemDelegate(new SectionDelegate(this));
    setAlternatingRowColors(true);
    setUniformRowHeights(true);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setTextElideMode(Qt::ElideMiddle);
    setIndentation(12);
    header()->setStretchLastSection(true);
}

void PropertyView::setPropertyModel(PropertyModel *model)
{
    setModel(model);
    connect(model, &QAbstractItemModel::modelReset, this, &PropertyView::refresh);
    refresh();
}

void PropertyView::refresh()
{
    const int sections = model()->rowCount();
    for (int row = 0; row < sections; ++row)
        setFirstColumnSpanned(row, {}, true);
    expandAll();
    resizeColumnToContents(PropertyModel::KeyColumn);
    // Keys are short; never let a long tensor name push the values out of sight.
    // (A view not shown yet has no real width: cap at a fixed size then.)
    const int cap = viewport()->width() > 200 ? viewport()->width() / 2 : 240;
    setColumnWidth(PropertyModel::KeyColumn, qMin(columnWidth(PropertyModel::KeyColumn) + 12, cap));
}

} // namespace tessera::views
