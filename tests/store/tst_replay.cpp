// `tessera-cli project create` and `tessera-cli replay` end to end: a project
// made without the workbench replays to the same plan, survives being moved
// with its model, reports stale overrides and refuses a changed model.
#include "core/store/project.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <string_view>

#include "tests/common/clirun.h"

namespace fs = std::filesystem;

namespace {

bool contains(const std::string &text, std::string_view part)
{
    return text.find(part) != std::string::npos;
}

class Replay : public tessera::test::CliSuite<Replay>
{
public:
    static constexpr const char *kDirName = "tessera-replay-test";

protected:
    static void SetUpTestSuite()
    {
        CliSuite::SetUpTestSuite();
        Result r = run("sample squeezenet --out " + (s_dir / "squeezenet.onnx").string());
        ASSERT_EQ(r.code, 0) << r.err;
    }

    // A folder with its own copy of the model and a project made from it.
    static fs::path makeProject(const std::string &name, const std::string &extra = {}, int expectedCode = 0)
    {
        const fs::path dir = s_dir / name;
        fs::create_directories(dir / "models");
        fs::copy_file(s_dir / "squeezenet.onnx", dir / "models" / "net.onnx", fs::copy_options::overwrite_existing);
        Result r = run("project create " + (dir / "p.tessera").string() + " --model " +
                       (dir / "models" / "net.onnx").string() + " --algo layer-fusion --device stcp920 " + extra);
        EXPECT_EQ(r.code, expectedCode) << r.err;
        return dir;
    }
};

TEST_F(Replay, AFreshProjectReplaysToTheSamePlan)
{
    const fs::path dir = makeProject("fresh");
    const fs::path planFile = dir / "replayed.json";
    Result r = run("replay " + (dir / "p.tessera").string() + " --json --out " + planFile.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const QJsonObject o = json(r);
    for (const char *key : {"algorithm", "device", "kernels", "steps", "decisions", "search_ms", "est_latency_ms",
                            "traffic_bytes", "stats", "overrides", "reproduced", "previous", "plan_id"})
        EXPECT_TRUE(o.contains(key)) << key;
    EXPECT_EQ(o["algorithm"].toString(), "layer-fusion");
    EXPECT_EQ(o["device"].toString(), "stcp920");
    EXPECT_GT(o["kernels"].toInt(), 10);
    EXPECT_TRUE(o["reproduced"].toBool());
    EXPECT_EQ(o["previous"].toObject()["id"].toInt(), 1);
    EXPECT_EQ(o["previous"].toObject()["kernels"].toInt(), o["kernels"].toInt());
    // Issue 18: the same plan again is not stored a second time.
    EXPECT_EQ(o["plan_id"].toInt(), 1);
    EXPECT_FALSE(o["stored"].toBool());
    EXPECT_TRUE(contains(slurp(planFile), "\"format_version\"")) << "--out writes a schedule document";
    {
        auto project = tessera::Project::open((dir / "p.tessera").string(), tessera::OpenMode::ReadOnly);
        ASSERT_TRUE(project.isOk()) << project.status().str();
        EXPECT_EQ(project->plans()->size(), 1u);
    }

    Result text = run("replay " + (dir / "p.tessera").string());
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(contains(text.out, "reproduced plan 1")) << text.out;
    EXPECT_TRUE(contains(text.out, "nothing new")) << text.out;
}

// Twin: a replay that makes another plan (the model's batch changed, forced)
// stores it, labelled "replay".
TEST_F(Replay, AReplayWithAnotherPlanStoresIt)
{
    const fs::path dir = makeProject("another-plan");
    Result rebuilt = run("sample squeezenet --batch 2 --out " + (dir / "models" / "net.onnx").string());
    ASSERT_EQ(rebuilt.code, 0) << rebuilt.err;
    Result forced = run("replay " + (dir / "p.tessera").string() + " --json --force");
    ASSERT_EQ(forced.code, 0) << forced.err;
    EXPECT_TRUE(json(forced)["stored"].toBool());
    EXPECT_EQ(json(forced)["plan_id"].toInt(), 2);
    auto project = tessera::Project::open((dir / "p.tessera").string(), tessera::OpenMode::ReadOnly);
    ASSERT_TRUE(project.isOk()) << project.status().str();
    auto plans = project->plans();
    ASSERT_EQ(plans->size(), 2u);
    EXPECT_EQ(plans->at(1).label, "replay");
}

TEST_F(Replay, AProjectMovedWithItsModelStillReplays)
{
    const fs::path dir = makeProject("before-move");
    const fs::path moved = s_dir / "after-move";
    fs::rename(dir, moved);
    Result r = run("replay " + (moved / "p.tessera").string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(json(r)["reproduced"].toBool());
    EXPECT_EQ(json(r)["model"].toString().toStdString(), (moved / "models" / "net.onnx").string());
}

TEST_F(Replay, AStaleOverrideIsReportedAndKept)
{
    const fs::path overrides = s_dir / "stale.json";
    std::ofstream(overrides) << R"({"layer-fusion.fuse:no-such-node": "separate"})";
    const fs::path dir = makeProject("stale", "--override " + overrides.string(), /*expectedCode=*/3);
    ASSERT_TRUE(fs::exists(dir / "p.tessera")) << "the project is written; the override is reported";
    Result r = run("replay " + (dir / "p.tessera").string() + " --json");
    EXPECT_EQ(r.code, 3);
    EXPECT_TRUE(contains(r.err, "stale")) << r.err;
    const QJsonArray reports = json(r)["overrides"].toArray();
    ASSERT_EQ(reports.size(), 1);
    EXPECT_EQ(reports[0].toObject()["key"].toString(), "layer-fusion.fuse:no-such-node");
    EXPECT_EQ(reports[0].toObject()["outcome"].toString(), "stale");
    EXPECT_TRUE(json(r)["reproduced"].toBool());
}

TEST_F(Replay, AChangedModelIsRefusedUnlessForced)
{
    const fs::path dir = makeProject("changed");
    Result rebuilt = run("sample squeezenet --batch 2 --out " + (dir / "models" / "net.onnx").string());
    ASSERT_EQ(rebuilt.code, 0) << rebuilt.err;

    Result refused = run("replay " + (dir / "p.tessera").string() + " --json");
    EXPECT_EQ(refused.code, 3);
    EXPECT_TRUE(contains(refused.err, "model changed since the project was saved")) << refused.err;
    EXPECT_TRUE(contains(refused.err, "--force")) << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
    {
        auto project = tessera::Project::open((dir / "p.tessera").string(), tessera::OpenMode::ReadOnly);
        EXPECT_EQ(project->plans()->size(), 1u) << "nothing stored by a refused replay";
    }

    Result forced = run("replay " + (dir / "p.tessera").string() + " --json --force");
    ASSERT_EQ(forced.code, 0) << forced.err;
    EXPECT_TRUE(json(forced)["model_changed"].toBool());
    EXPECT_FALSE(json(forced)["reproduced"].toBool()) << "twice the batch, another latency";
    // The project now tracks the new model: a plain replay works again.
    Result after = run("replay " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(after.code, 0) << after.err;
    EXPECT_TRUE(json(after)["reproduced"].toBool());
}

// Schema v3 records a hash of the model's bytes: other weights of the same structure are noted (and the
// new hash recorded), a file that was only touched is not.
TEST_F(Replay, AModelWithOtherBytesButTheSameStructureIsNotedNotRefused)
{
    const fs::path dir = makeProject("other-weights");
    const fs::path model = dir / "models" / "net.onnx";
    ASSERT_EQ(run("sample squeezenet --seed 11 --out " + model.string()).code, 0);
    Result r = run("replay " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "the model file changed on disk but its structure did not")) << r.err;
    EXPECT_TRUE(json(r)["reproduced"].toBool());
    Result again = run("replay " + (dir / "p.tessera").string() + " --json");
    EXPECT_FALSE(contains(again.err, "changed on disk")) << "the new content hash was recorded: " << again.err;
}

// Negative twin: a touched file with the same bytes is not a change.
TEST_F(Replay, ATouchedModelWithTheSameBytesIsNoChange)
{
    const fs::path dir = makeProject("touched");
    const fs::path model = dir / "models" / "net.onnx";
    fs::last_write_time(model, fs::last_write_time(model) + std::chrono::hours(1));
    Result r = run("replay " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(contains(r.err, "changed on disk")) << r.err;
    EXPECT_TRUE(json(r)["reproduced"].toBool());
}

// Issue 13: a project made with --cost measured keeps its cost source and
// replays with it: the kernels are timed again on the same backend, so the
// replay reproduces the first plan and says nothing about estimates.
TEST_F(Replay, AProjectWithMeasuredCostsReplaysWithItsMeter)
{
    const fs::path dir = makeProject("measured", "--cost measured --meter sim");
    Result show = run("project show " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(show.code, 0) << show.err;
    EXPECT_EQ(json(show)["cost"].toString(), "measured");
    EXPECT_EQ(json(show)["meter"].toString(), "sim");
    Result text = run("project show " + (dir / "p.tessera").string());
    EXPECT_TRUE(contains(text.out, "measured costs on sim")) << text.out;
    // The first plan was scheduled with the simulator's times, not the estimates.
    const fs::path estimated = makeProject("estimated");
    Result estimatedShow = run("project show " + (estimated / "p.tessera").string() + " --json");
    ASSERT_EQ(estimatedShow.code, 0) << estimatedShow.err;
    EXPECT_EQ(json(estimatedShow)["cost"].toString(), "estimated");
    const double measuredMs = json(show)["plans"].toArray().at(0).toObject()["est_latency_ms"].toDouble();
    const double estimatedMs = json(estimatedShow)["plans"].toArray().at(0).toObject()["est_latency_ms"].toDouble();
    EXPECT_GT(std::abs(measuredMs - estimatedMs), 1e-6 * estimatedMs) << measuredMs << " vs " << estimatedMs;

    Result r = run("replay " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(json(r)["reproduced"].toBool());
    EXPECT_FALSE(contains(r.err, "estimated")) << r.err;
}

// Negative twin: a stored meter this build cannot use (no such backend) is
// not silently dropped: the replay says it used estimated costs instead, and
// the project keeps its choice; a bad --cost makes no project at all.
TEST_F(Replay, AProjectWhoseMeterIsMissingReplaysWithEstimatesAndSaysSo)
{
    const fs::path dir = makeProject("unmetered", "--cost measured --meter sim");
    {
        auto project = tessera::Project::open((dir / "p.tessera").string());
        ASSERT_TRUE(project.isOk()) << project.status().str();
        tessera::ProjectSetup setup = *project->setup();
        setup.meter = "no-such-backend";
        ASSERT_TRUE(project->setSetup(setup).isOk());
    }
    Result r = run("replay " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "the project's costs are measured on 'no-such-backend', which cannot be used here"))
        << r.err;
    EXPECT_TRUE(contains(r.err, "replayed with estimated costs")) << r.err;
    EXPECT_FALSE(json(r)["reproduced"].toBool()) << "estimates make another plan than the simulator's times";
    auto project = tessera::Project::open((dir / "p.tessera").string(), tessera::OpenMode::ReadOnly);
    ASSERT_TRUE(project.isOk()) << project.status().str();
    EXPECT_EQ(project->setup()->meter, "no-such-backend");

    const fs::path bad = s_dir / "bad-cost";
    fs::create_directories(bad);
    Result guessed = run("project create " + (bad / "p.tessera").string() + " --model " +
                         (dir / "models" / "net.onnx").string() + " --algo layer-fusion --cost guessed");
    EXPECT_EQ(guessed.code, 2) << guessed.err;
    EXPECT_TRUE(contains(guessed.err, "--cost expects estimated or measured")) << guessed.err;
    EXPECT_FALSE(fs::exists(bad / "p.tessera"));
}

TEST_F(Replay, BadArgumentsAndFilesAreClearErrors)
{
    EXPECT_EQ(run("replay").code, 2);
    EXPECT_EQ(run("project").code, 2);
    EXPECT_EQ(run("project frobnicate x.tessera").code, 2);
    const fs::path missing = s_dir / "missing.tessera";
    Result r = run("replay " + missing.string());
    EXPECT_EQ(r.code, 3);
    EXPECT_TRUE(contains(r.err, missing.string())) << r.err;
    // An ONNX model is not a project.
    Result notProject = run("replay " + (s_dir / "squeezenet.onnx").string());
    EXPECT_EQ(notProject.code, 3);
    EXPECT_TRUE(contains(notProject.err, "not a tessera project")) << notProject.err;

    const fs::path dir = makeProject("exists");
    Result again = run("project create " + (dir / "p.tessera").string() + " --model " +
                       (dir / "models" / "net.onnx").string() + " --algo layer-fusion");
    EXPECT_EQ(again.code, 2);
    EXPECT_TRUE(contains(again.err, "already exists")) << again.err;
    Result unknown = run("project create " + (s_dir / "u.tessera").string() + " --model " +
                         (dir / "models" / "net.onnx").string() + " --algo magic");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_FALSE(fs::exists(s_dir / "u.tessera")) << "no project for a setup that does not schedule";

    Result show = run("project show " + (dir / "p.tessera").string() + " --json");
    ASSERT_EQ(show.code, 0) << show.err;
    EXPECT_EQ(json(show)["algorithm"].toString(), "layer-fusion");
    EXPECT_EQ(json(show)["model"].toString(), "models/net.onnx");
    EXPECT_EQ(json(show)["plans"].toArray().size(), 1);
}

} // namespace
