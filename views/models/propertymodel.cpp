// PropertyModel (see propertymodel.h).
#include "views/models/propertymodel.h"

namespace tessera::views {

PropertyModel::PropertyModel(QObject *parent) : QAbstractItemModel(parent) {}

void PropertyModel::setSections(std::vector<Section> sections)
{
    beginResetModel();
    m_sections = std::move(sections);
    endResetModel();
}

QString PropertyModel::value(const QString &title, const QString &key) const
{
    for (const Section &s : m_sections)
        if (s.title == title)
            for (const Row &r : s.rows)
                if (r.key == key)
                    return r.value;
    return {};
}

QModelIndex PropertyModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row()) + 1 : quintptr(0));
}

QModelIndex PropertyModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int PropertyModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_sections.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return static_cast<int>(m_sections[static_cast<std::size_t>(parent.row())].rows.size());
}

int PropertyModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant PropertyModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == 0) {
        if (index.column() == KeyColumn && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
            return m_sections[static_cast<std::size_t>(index.row())].title;
        return {};
    }
    const Row &r = m_sections[index.internalId() - 1].rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return index.column() == KeyColumn ? r.key : r.value;
    case Qt::ToolTipRole: return index.column() == KeyColumn ? r.key : r.toolTip.isEmpty() ? r.value : r.toolTip;
    default: return {};
    }
}

QVariant PropertyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == KeyColumn ? QStringLiteral("Property") : QStringLiteral("Value");
}

} // namespace tessera::views
