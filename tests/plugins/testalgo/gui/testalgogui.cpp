// The test plugin's dock and action (see testalgogui.h).
#include "tests/plugins/testalgo/gui/testalgogui.h"

#include "views/widgets/planextensions.h"

#include <QListWidget>

namespace tessera {

void registerTestalgoPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock({QStringLiteral("testalgoDock"),
                        QStringLiteral("Kernel Order"),
                        {"testalgo"},
                        [](QWidget *parent) -> QWidget * { return new QListWidget(parent); },
                        [](QWidget *view, const views::PlanShown &plan) {
                            auto *list = static_cast<QListWidget *>(view);
                            list->clear();
                            for (const Kernel &k : plan.run->result.plan.kernels)
                                list->addItem(QString::fromStdString(k.name));
                        }});
    extensions.addAction({QStringLiteral("testalgoCountAction"),
                          QStringLiteral("Count Kernels"),
                          QStringLiteral("Count the kernels of the testalgo plan"),
                          {"testalgo"},
                          [](const views::PlanShown &plan, QWidget *window) {
                              window->setStatusTip(
                                  QStringLiteral("%1 kernels").arg(plan.run->result.plan.kernels.size()));
                          }});
}

} // namespace tessera
