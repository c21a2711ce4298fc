// RecentFiles: File ▸ Open Recent. Keeps the last 10 opened models in
// QSettings (most recent first, no duplicates); files that no longer exist are
// pruned whenever the list is read, and reported so the window can say so.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace tessera::gui {

class RecentFiles final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    // Fills `menu` each time it is about to show.
    explicit RecentFiles(QMenu *menu, QObject *parent = nullptr);

    void add(const QString &path);
    void remove(const QString &path);
    void clear();
    QStringList files();  // prunes missing files first
    QString mostRecent(); // empty if none

signals:
    void fileTriggered(const QString &path);
    void pruned(const QStringList &missing);

private:
    QStringList stored() const;
    void store(const QStringList &files);
    void fillMenu();

    QMenu *m_menu;
};

// Where a file dialog starts (issue 18): the folder last used for that kind of
// file while it exists, else the current model's folder (not a sample's: the
// cache is no place to save in), else the home folder.
QString dialogFolder(const QString &lastUsed, const QString &modelPath);

} // namespace tessera::gui
