// RecentFiles (see recentfiles.h).
#include "app/gui/recentfiles.h"

#include "app/gui/samplecache.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace tessera::gui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QMenu *menu, QObject *parent) : QObject(parent), m_menu(menu)
{
    connect(m_menu, &QMenu::aboutToShow, this, &RecentFiles::fillMenu);
}

QStringList RecentFiles::stored() const
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::store(const QStringList &files)
{
    QSettings().setValue(kKey, files);
}

void RecentFiles::add(const QString &path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList list = stored();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxEntries)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString &path)
{
    QStringList list = stored();
    if (list.removeAll(QFileInfo(path).absoluteFilePath()) > 0)
        store(list);
}

void RecentFiles::clear()
{
    store({});
}

QStringList RecentFiles::files()
{
    QStringList kept, missing;
    for (const QString &f : stored())
        (QFileInfo::exists(f) ? kept : missing).push_back(f);
    if (!missing.isEmpty()) {
        store(kept);
        emit pruned(missing);
    }
    return kept;
}

QString RecentFiles::mostRecent()
{
    const QStringList list = files();
    return list.isEmpty() ? QString() : list.front();
}

void RecentFiles::fillMenu()
{
    m_menu->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString &path = list[i];
        // "&1 resnet50.onnx  (~/models)": mnemonic, name, then where it lives.
        const QString label = QStringLiteral("&%1 %2  (%3)")
                                  .arg((i + 1) % 10)
                                  .arg(QFileInfo(path).fileName().replace(QLatin1Char('&'), QLatin1String("&&")),
                                       QDir::toNativeSeparators(QFileInfo(path).path()));
        QAction *a = m_menu->addAction(label);
        a->setToolTip(path);
        connect(a, &QAction::triggered, this, [this, path] { emit fileTriggered(path); });
    }
    if (list.isEmpty()) {
        m_menu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    m_menu->addSeparator();
    connect(m_menu->addAction(tr("Clear Menu")), &QAction::triggered, this, &RecentFiles::clear);
}

QString dialogFolder(const QString &lastUsed, const QString &modelPath)
{
    if (!lastUsed.isEmpty() && QFileInfo(lastUsed).isDir())
        return lastUsed;
    if (!modelPath.isEmpty() && !isCachedSample(modelPath)) {
        const QFileInfo model(modelPath);
        if (model.absoluteDir().exists())
            return model.absolutePath();
    }
    return QDir::homePath();
}

} // namespace tessera::gui
