#include "plugins/graphturbo/gui/graphturbogui.h"

#include "plugins/graphturbo/gui/instanceview.h"
#include "views/widgets/planextensions.h"

namespace tessera {

void registerGraphturboPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock({QStringLiteral("graphturboDock"),
                        QStringLiteral("Sub-graph Instances"),
                        {"graphturbo"},
                        [](QWidget *parent) -> QWidget * { return new graphturbo::InstanceView(parent); },
                        [](QWidget *view, const views::PlanShown &plan) {
                            auto *v = static_cast<graphturbo::InstanceView *>(view);
                            if (plan.run)
                                v->setPlan(plan.run->result.plan, plan.device);
                            else
                                v->clear();
                        }});
}

} // namespace tessera
