#include "plugins/graphturbo/gui/graphturbogui.h"

#include "plugins/graphturbo/gui/instanceview.h"
#include "plugins/graphturbo/gui/timelineviews.h"
#include "views/widgets/planextensions.h"

#include <tuple>

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
    using graphturbo::TimelineDock;
    for (const auto &[name, title, kind] :
         {std::tuple{"graphturboLivenessDock", "Tensor Liveness", TimelineDock::Kind::Liveness},
          std::tuple{"graphturboOverlapDock", "Instruction Overlap", TimelineDock::Kind::Overlap}}) {
        const TimelineDock::Kind k = kind;
        extensions.addDock({QString::fromLatin1(name),
                            QString::fromLatin1(title),
                            {"graphturbo"},
                            [k](QWidget *parent) -> QWidget * { return new TimelineDock(k, parent); },
                            [](QWidget *view, const views::PlanShown &plan) {
                                auto *v = static_cast<TimelineDock *>(view);
                                if (plan.run)
                                    v->setPlan(plan.run->result.plan, plan.device, &plan.run->trace,
                                               plan.highlightNodes);
                                else
                                    v->clear();
                            }});
    }
}

} // namespace tessera
