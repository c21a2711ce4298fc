// Fixtures for tests that drive a ScheduleController (app/gui) directly (stepper,
// options editor): a controller that schedules at once, and Qt's model tester
// reporting through QtTest.
#pragma once

#include "app/gui/schedulecontroller.h"
#include "core/hw/device.h"
#include "core/sched/scheduler.h"

#include <QAbstractItemModelTester>

#include <memory>

namespace tessera::testviews {

// No debounce: a change schedules on the next event-loop turn.
inline std::unique_ptr<gui::ScheduleController> makeController(const SchedulerRegistry &registry,
                                                               std::shared_ptr<const Graph> graph, const Device &device,
                                                               const QString &algorithm)
{
    auto c = std::make_unique<gui::ScheduleController>(registry);
    c->setDebounceInterval(0);
    c->setGraph(std::move(graph));
    c->setDevice(device);
    c->setScheduler(algorithm);
    return c;
}

inline std::unique_ptr<QAbstractItemModelTester> modelTester(QAbstractItemModel *model)
{
    return std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

} // namespace tessera::testviews
