// The test plugin (see testalgo.h).
#include "tests/plugins/testalgo/testalgo.h"

#include "core/hw/deviceregistry.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/sched/planbuilder.h"
#include "core/sched/session.h"
#include "core/support/fileio.h"

#include <cstdio>

namespace tessera {

namespace {

class TestalgoScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{"testalgo",
                                         "Test algorithm",
                                         "one kernel per operator (test plugin)",
                                         "docs/plugins.md",
                                         {},
                                         {{"kernels", "kernels issued"}}};
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &, Trace &trace) const override
    {
        auto order = topologicalOrder(*req.graph);
        if (!order)
            return order.status();
        PlanBuilder builder(*req.graph, *req.cost);
        std::int32_t step = 0;
        for (NodeId n : *order) {
            builder.addKernel(req.graph->node(n).name, {n}, {}, {}, step++);
            trace.add("issue", "", "run " + req.graph->node(n).name, "topological order");
        }
        ScheduleResult result;
        result.plan = builder.finish();
        result.stats["kernels"] = double(result.plan.kernels.size());
        return result;
    }
};

ScheduleFormat orderFormat()
{
    ScheduleFormat f;
    f.name = "testalgo-order";
    f.title = "Testalgo Order";
    f.summary = "The kernels of a testalgo plan, one per line";
    f.suffix = ".order.txt";
    f.filter = "Kernel order (*.txt)";
    f.algorithms = {"testalgo"};
    f.write = [](const ScheduleExportRequest &r) -> Expected<std::string> { return testalgoOrder(r.run->result.plan); };
    return f;
}

int runOrder(const cli::Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return cli::fail(cli::usageError("testalgo-order needs exactly one MODEL"));
    const auto out = args.value("out");
    if (!out)
        return cli::fail(cli::usageError("testalgo-order needs --out FILE"));
    auto model = cli::loadModel(args.positional().front(), args, extensions);
    if (!model)
        return cli::fail(model.status());
    auto device = DeviceRegistry::standard().lookup("stcp920");
    auto scheduler = extensions.schedulers().get("testalgo");
    if (!device || !scheduler)
        return cli::fail(device ? scheduler.status() : device.status());
    auto run = scheduleGraph(model->graph, *device, **scheduler, ScheduleSetup{});
    if (!run)
        return cli::fail(run.status());
    ScheduleExportRequest request;
    request.run = &*run;
    request.graph = &model->graph;
    request.modelPath = args.positional().front();
    auto text = (*extensions.scheduleFormat("testalgo-order"))->write(request);
    if (!text)
        return cli::fail(text.status());
    if (Status s = writeFileAtomic(*out, *text); !s.isOk())
        return cli::fail(s);
    std::printf("kernels        %zu\n", run->result.plan.kernels.size());
    return 0;
}

} // namespace

std::unique_ptr<IScheduler> createTestalgoScheduler()
{
    return std::make_unique<TestalgoScheduler>();
}

std::string testalgoOrder(const ExecutionPlan &plan)
{
    std::string out;
    for (std::size_t k = 0; k < plan.kernels.size(); ++k)
        out += std::to_string(k) + " " + plan.kernels[k].name + "\n";
    return out;
}

void registerTestalgoPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createTestalgoScheduler());
    extensions.addScheduleFormat(orderFormat());
    auto options = cli::modelOptions();
    options.push_back({"out", true, false, "--out FILE       where to write the kernel order"});
    extensions.addCommand({"testalgo-order", "testalgo-order MODEL --out FILE",
                           "schedule a model with testalgo and write its kernel order (test plugin)", options,
                           runOrder});
}

} // namespace tessera
