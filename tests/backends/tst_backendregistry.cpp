// The open backend registry (core/backend/backend.h): lookup by name, the
// capability queries, backend tags on compiled plans, the null backend
// (backends/null) and a backend that joins through one registration line
// (tests/backends/testbackend).
#include "app/registerbuiltins.h"
#include "backends/null/null.h"
#include "core/backend/backend.h"
#include "core/backend/outputcheck.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

#include "tests/backends/planutil.h"
#include "tests/backends/testbackend/testbackend.h"
#include "tests/common/testgraphs.h"

namespace tessera {
namespace {

std::vector<std::string> namesOf(const std::vector<IBackend *> &backends)
{
    std::vector<std::string> out;
    for (const IBackend *b : backends)
        out.push_back(b->info().name);
    return out;
}

class BackendRegistryTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        registerBuiltinBackends(registry);
        testing::registerTestBackend(registry); // the one line that adds a backend
    }

    ExecutionPlan plan() const
    {
        auto p = planutil::baselinePlan(graph, "sequential");
        EXPECT_TRUE(p.isOk()) << p.status().str();
        return p ? *p : ExecutionPlan{};
    }

    BackendRegistry registry;
    Graph graph = testgraphs::residualChain(2);
};

// --- lookup ------------------------------------------------------------------------------

TEST_F(BackendRegistryTest, EveryBackendIsFoundByName)
{
    EXPECT_EQ(registry.names(), (std::vector<std::string>{"reference", "null", "sim", "cpu", "test-dsa"}));
    EXPECT_EQ(registry.find("dsa"), registry.find("sim")); // an alias, not a second backend
    for (const std::string &name : registry.names()) {
        auto b = registry.get(name);
        ASSERT_TRUE(b.isOk()) << b.status().str();
        EXPECT_EQ((*b)->info().name, name);
        EXPECT_EQ(registry.find(name), *b);
    }
}

TEST_F(BackendRegistryTest, UnknownNameIsAUsageErrorListingTheKnownNames)
{
    EXPECT_EQ(registry.find("warp"), nullptr);
    auto b = registry.get("warp");
    ASSERT_FALSE(b.isOk());
    EXPECT_EQ(b.status().code(), ErrorCode::Usage);
    EXPECT_EQ(b.status().message(), "unknown backend 'warp'; known: reference, null, sim, cpu, test-dsa");
    EXPECT_FALSE(registry.get("referenc").isOk()); // whole names only
}

// Names users type match without regard to case (issue 18); the registered spelling is kept.
TEST_F(BackendRegistryTest, NamesMatchWithoutRegardToCase)
{
    auto b = registry.get("Reference");
    ASSERT_TRUE(b.isOk()) << b.status().str();
    EXPECT_EQ((*b)->info().name, "reference");
    EXPECT_EQ(registry.find("NULL"), registry.find("null"));
}

// --- capabilities ------------------------------------------------------------------------

TEST_F(BackendRegistryTest, CapabilitiesSayWhatEachBackendReports)
{
    const BackendCapabilities &ref = registry.find("reference")->info().capabilities;
    EXPECT_TRUE(ref.functional);
    EXPECT_TRUE(ref.measured);
    EXPECT_FALSE(ref.timing);
    const BackendCapabilities &null = registry.find("null")->info().capabilities;
    EXPECT_FALSE(null.functional || null.timing || null.measured);
    const BackendCapabilities &test = registry.find(testing::kTestBackendName)->info().capabilities;
    EXPECT_TRUE(test.timing);
    EXPECT_FALSE(test.functional || test.measured);
    EXPECT_TRUE(test.supportsDeviceKind("dsa"));
    EXPECT_FALSE(test.supportsDeviceKind("gpu"));
}

TEST_F(BackendRegistryTest, DeviceKindQueryKeepsRegistrationOrder)
{
    EXPECT_EQ(namesOf(registry.forDeviceKind("dsa")),
              (std::vector<std::string>{"reference", "null", "sim", "cpu", "test-dsa"}));
    EXPECT_EQ(namesOf(registry.forDeviceKind("gpu")), (std::vector<std::string>{"reference", "null", "sim", "cpu"}));
    BackendRegistry dsaOnly;
    testing::registerTestBackend(dsaOnly);
    EXPECT_TRUE(dsaOnly.forDeviceKind("cpu").empty());
}

// --- running, and refusing foreign plans -------------------------------------------------

TEST_F(BackendRegistryTest, TestBackendReportsModelledTime)
{
    const ExecutionPlan p = plan();
    ASSERT_FALSE(p.tasks.empty());
    IBackend *test = registry.find(testing::kTestBackendName);
    auto r = planutil::compileAndRun(*test, graph, p, {});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    double sum = 0;
    for (const Task &t : p.tasks)
        sum += t.cost.timeNs;
    EXPECT_GT(sum, 0);
    EXPECT_DOUBLE_EQ(r->latencyMs, sum / 1e6);
    ASSERT_EQ(r->timeline.size(), p.tasks.size());
    EXPECT_DOUBLE_EQ(r->timeline.back().endNs, sum);
    EXPECT_TRUE(r->outputs.empty());
}

TEST_F(BackendRegistryTest, EveryBackendRefusesAPlanAnotherCompiled)
{
    const ExecutionPlan p = plan();
    const auto inputs = planutil::makeInputs(graph, 1);
    std::map<std::string, std::unique_ptr<CompiledPlan>> compiled;
    for (IBackend *b : registry.all()) {
        auto c = b->compile(graph, p);
        ASSERT_TRUE(c.isOk()) << b->info().name << ": " << c.status().str();
        EXPECT_EQ((*c)->backend(), b->info().name);
        compiled[b->info().name] = std::move(*c);
    }
    for (IBackend *runner : registry.all())
        for (auto &[by, cp] : compiled) {
            auto r = runner->run(*cp, inputs);
            if (by == runner->info().name) {
                EXPECT_TRUE(r.isOk()) << by << ": " << r.status().str();
                continue;
            }
            ASSERT_FALSE(r.isOk()) << runner->info().name << " ran a plan " << by << " compiled";
            EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
            EXPECT_EQ(r.status().message(), "the plan was compiled by the '" + by + "' backend, not by the " +
                                                runner->info().name + " backend; compile it here first");
        }
}

TEST(CompiledPlanTag, UntaggedPlanIsRefusedByName)
{
    const BackendInfo info{"reference"};
    EXPECT_TRUE(checkCompiledBy(CompiledPlan("reference"), info).isOk());
    const Status s = checkCompiledBy(CompiledPlan(), info);
    EXPECT_EQ(s.code(), ErrorCode::InvalidInput);
    EXPECT_EQ(s.message(),
              "the plan was compiled by the 'unknown' backend, not by the reference backend; compile it here first");
}

// --- the null backend --------------------------------------------------------------------

TEST_F(BackendRegistryTest, NullBackendReturnsZeroFilledOutputsInZeroTime)
{
    const ExecutionPlan p = plan();
    const auto inputs = planutil::makeInputs(graph, 1);
    auto want = planutil::compileAndRun(*registry.find("reference"), graph, p, inputs);
    ASSERT_TRUE(want.isOk()) << want.status().str();
    int reported = 0;
    RunObserver observer;
    observer.taskFinished = [&](TaskId, double) { ++reported; };
    IBackend *null = registry.find("null");
    auto compiled = null->compile(graph, p);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    auto r = null->run(**compiled, inputs, observer);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    ASSERT_EQ(r->outputs.size(), want->outputs.size());
    for (std::size_t i = 0; i < r->outputs.size(); ++i) {
        const HostTensor &o = r->outputs[i];
        EXPECT_EQ(o.name, want->outputs[i].name);
        EXPECT_EQ(o.dtype, want->outputs[i].dtype);
        EXPECT_EQ(o.shape, want->outputs[i].shape);
        EXPECT_EQ(o.bytes.size(), want->outputs[i].bytes.size());
        EXPECT_TRUE(std::all_of(o.bytes.begin(), o.bytes.end(), [](std::uint8_t b) { return b == 0; }));
    }
    EXPECT_EQ(r->latencyMs, 0);
    EXPECT_EQ(r->metrics.at("total_ms"), 0);
    EXPECT_EQ(r->timeline.size(), p.tasks.size());
    EXPECT_EQ(reported, static_cast<int>(p.tasks.size()));
    for (const TaskTiming &t : r->timeline)
        EXPECT_EQ(t.endNs, 0);
}

TEST_F(BackendRegistryTest, NullBackendStillRefusesMissingInputs)
{
    IBackend *null = registry.find("null");
    auto compiled = null->compile(graph, plan());
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    auto r = null->run(**compiled, {});
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(r.status().message().find("missing input '"), std::string::npos) << r.status().str();
}

// checkOutput / relativeL2 (core/backend/outputcheck.h): what "matches the reference" means for
// `run --check`, the backend tests and the benches.
HostTensor floats(std::vector<float> v)
{
    HostTensor h{.name = "y", .dtype = DType::Float32, .shape = {static_cast<std::int64_t>(v.size())}};
    h.bytes.resize(v.size() * 4);
    std::memcpy(h.bytes.data(), v.data(), h.bytes.size());
    return h;
}

TEST(OutputCheck, CloseValuesPassAndTheErrorIsRelative)
{
    const OutputCheck c = checkOutput(floats({3, 4.00004f}), floats({3, 4}), 1e-4);
    EXPECT_TRUE(c.ok);
    EXPECT_NEAR(c.relL2, 4e-5 / 5, 1e-7);
    EXPECT_EQ(c.badValues, 0);
    // Twin: ten times further is over the tolerance.
    EXPECT_FALSE(checkOutput(floats({3, 4.004f}), floats({3, 4}), 1e-4).ok);
}

TEST(OutputCheck, ANanWhereTheReferenceIsFiniteFailsWhateverTheRest)
{
    const OutputCheck c = checkOutput(floats({3, std::nanf("")}), floats({3, 4}), 1e-4);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.badValues, 1);
    EXPECT_TRUE(std::isinf(relativeL2(floats({3, std::nanf("")}), floats({3, 4}))));
    // Twin: the reference's own NaN is not counted against the output.
    const OutputCheck own = checkOutput(floats({3, 1}), floats({3, std::nanf("")}), 1e-4);
    EXPECT_TRUE(own.ok);
    EXPECT_EQ(relativeL2(floats({3, 1}), floats({3, std::nanf("")})), 0);
}

TEST(OutputCheck, DifferentShapesOrTypesNeverMatch)
{
    EXPECT_TRUE(std::isinf(relativeL2(floats({1, 2, 3}), floats({1, 2}))));
    HostTensor ints{.name = "i", .dtype = DType::Int32, .shape = {1}, .bytes = {1, 0, 0, 0}};
    HostTensor other = ints;
    EXPECT_EQ(relativeL2(ints, other), 0);
    other.bytes[0] = 2;
    EXPECT_FALSE(checkOutput(ints, other, 1).ok);
}

} // namespace
} // namespace tessera
