// Scheduler plugins loaded from a folder (core/sched/pluginloader.h): the
// example plugin registers, schedules and verifies like a built-in; every kind
// of misfit is refused with a one-line diagnostic while the rest still loads.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/plan/verify.h"
#include "core/sched/pluginloader.h"
#include "core/sched/session.h"
#include "plugins/sequential/sequential.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "tests/common/testgraphs.h"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

class Plugins : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() / ("tessera-plugins-" + std::to_string(::getpid()) + "-" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_registry.add(createSequentialScheduler());
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // Copies a built plugin into the test folder under `name`.
    void install(const char *built, const std::string &name)
    {
        fs::copy_file(built, m_dir / name, fs::copy_options::overwrite_existing);
    }
    static bool mentions(const PluginLoadReport &r, const std::string &text)
    {
        for (const Diagnostic &d : r.problems)
            if (d.str().find(text) != std::string::npos)
                return true;
        return false;
    }

    fs::path m_dir;
    SchedulerRegistry m_registry;
};

TEST_F(Plugins, ExamplePluginSchedulesLikeABuiltIn)
{
    install(EXAMPLE_PLUGIN, "libexample.so");
    const PluginLoadReport report = loadSchedulerPlugins(m_registry, m_dir.string());
    ASSERT_TRUE(report.problems.empty()) << report.problems.front().str();
    ASSERT_EQ(report.loaded.size(), 1u);
    const IScheduler *plugin = m_registry.find("example-chain");
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(plugin->info().title, "Example chain (plugin)");

    const Graph g = testgraphs::residualChain(2);
    auto device = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(device.isOk());
    auto run = scheduleGraph(g, *device, *plugin, {});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.plan.kernels.size(), g.nodeCount());
    EXPECT_TRUE(verifyPlan(run->result.plan, g).isOk());
    EXPECT_EQ(run->trace.size(), g.nodeCount() + 1);
    ASSERT_EQ(run->decisions.records().size(), 1u);
    EXPECT_EQ(run->decisions.records().front().role, "example.first");
}

TEST_F(Plugins, MissingFolderLoadsNothing)
{
    const PluginLoadReport report = loadSchedulerPlugins(m_registry, (m_dir / "nope").string());
    EXPECT_TRUE(report.loaded.empty());
    EXPECT_TRUE(report.problems.empty());
    EXPECT_EQ(m_registry.all().size(), 1u);
}

TEST_F(Plugins, MisfitsAreRefusedAndTheRestLoads)
{
    install(EXAMPLE_PLUGIN, "a-good.so");
    install(BAD_ABI_PLUGIN, "b-bad-abi.so");
    install(NOT_A_PLUGIN, "c-not-a-plugin.so");
    install(DUPLICATE_PLUGIN, "d-duplicate.so");
    std::ofstream(m_dir / "e-junk.so") << "this is not an ELF file";
    std::ofstream(m_dir / "README.txt") << "not a library name: skipped";

    const PluginLoadReport report = loadSchedulerPlugins(m_registry, m_dir.string());
    EXPECT_EQ(report.loaded.size(), 1u);
    EXPECT_NE(m_registry.find("example-chain"), nullptr);
    ASSERT_EQ(report.problems.size(), 4u);
    EXPECT_TRUE(mentions(report, "b-bad-abi.so")) << "names the file";
    EXPECT_TRUE(mentions(report, "another Tessera"));
    EXPECT_TRUE(mentions(report, "not a tessera scheduler plugin"));
    EXPECT_TRUE(mentions(report, "'sequential' is already registered"));
    EXPECT_TRUE(mentions(report, "cannot load plugin"));
    EXPECT_EQ(m_registry.all().size(), 2u) << "sequential and example-chain";
    EXPECT_EQ(m_registry.find("sequential")->info().title, "Sequential") << "the built-in stays";
}

} // namespace
