// Node search for the Search dock.
//
// A query is whitespace-separated terms, all of which must match (case-
// insensitive): "op:Conv" matches nodes whose op type is Conv; a plain term
// matches nodes whose name contains it or whose op type equals it, so "Conv"
// finds every convolution and "layer3" every node under layer3. An empty
// query matches nothing. SearchModel lists the matches in node order.
#pragma once

#include "views/models/modeldata.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>
#include <vector>

namespace tessera::views {

// Matches in ascending NodeId order.
std::vector<NodeId> searchNodes(const Graph &g, const QString &query);

class SearchModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, OpColumn, ColumnCount };
    static constexpr int NodeIdRole = Qt::UserRole + 1;

    explicit SearchModel(QObject *parent = nullptr);

    void setModelData(std::shared_ptr<const ModelData> data); // keeps the query, re-runs it
    void setQuery(const QString &query);
    QString query() const { return m_query; }
    const std::vector<NodeId> &matches() const { return m_matches; }
    NodeId nodeAt(int row) const; // kInvalidId if out of range
    int rowOf(NodeId n) const;    // -1 if n is not a match

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void matchesChanged();

private:
    void rerun();

    std::shared_ptr<const ModelData> m_data;
    QStringList m_names; // node names, lower-cased once per model
    QStringList m_ops;   // op types, lower-cased
    QString m_query;
    std::vector<NodeId> m_matches;
};

} // namespace tessera::views
