// PropertyModel: a two-level key/value tree ("Cost" ▸ "FLOPs = 8.21 GFLOP")
// for read-only panels: the inspector and the model summary fill it with
// sections. Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include <QAbstractItemModel>
#include <QString>

#include <vector>

namespace tessera::views {

class PropertyModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, ColumnCount };

    struct Row {
        QString key;
        QString value;
        QString toolTip; // full text when the value is clipped; empty = value
    };
    struct Section {
        QString title;
        std::vector<Row> rows;
    };

    explicit PropertyModel(QObject *parent = nullptr);

    void setSections(std::vector<Section> sections);
    void clear() { setSections({}); }
    const std::vector<Section> &sections() const { return m_sections; }
    // Value of `key` in section `title`, empty if absent (for tests and tooltips).
    QString value(const QString &title, const QString &key) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // internalId: 0 for a section row, section+1 for a key/value row.
    std::vector<Section> m_sections;
};

} // namespace tessera::views
