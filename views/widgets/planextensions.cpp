// PlanExtensions (see planextensions.h).
#include "views/widgets/planextensions.h"

#include "core/support/assert.h"

#include <algorithm>

namespace tessera::views {

void PlanExtensions::addDock(PlanDock dock)
{
    TS_ASSERT_MSG(!dock.objectName.isEmpty() && dock.create, "a plan dock needs an object name and a create function");
    TS_ASSERT_MSG(std::none_of(m_docks.begin(), m_docks.end(),
                               [&](const PlanDock &d) { return d.objectName == dock.objectName; }),
                  "duplicate plan dock");
    m_docks.push_back(std::move(dock));
}

void PlanExtensions::addAction(PlanAction action)
{
    TS_ASSERT_MSG(!action.text.isEmpty() && action.trigger, "a plan action needs a text and a trigger function");
    m_actions.push_back(std::move(action));
}

bool PlanExtensions::applies(const std::vector<std::string> &algorithms, std::string_view algorithm)
{
    return algorithms.empty() || std::find(algorithms.begin(), algorithms.end(), algorithm) != algorithms.end();
}

} // namespace tessera::views
