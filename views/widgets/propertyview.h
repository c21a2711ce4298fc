// PropertyView: a QTreeView dressed for a PropertyModel — section titles bold
// and spanning both columns, sections expanded after every reset, the key
// column sized to its contents.
#pragma once

#include <QTreeView>

namespace tessera::views {

class PropertyModel;

class PropertyView final : public QTreeView
{
    Q_OBJECT
public:
    explicit PropertyView(QWidget *parent = nullptr);
    void setPropertyModel(PropertyModel *model);

private:
    void refresh(); // after a model reset
};

} // namespace tessera::views
