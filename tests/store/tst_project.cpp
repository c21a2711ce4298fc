// The project store: round trips, override history, session state, model
// references, migration, every bad-file class, locks, read-only files and
// SIGKILL during saves (core/store/project.h, autosaver.h, schema.h).
#include "core/store/autosaver.h"
#include "core/store/project.h"
#include "core/store/schema.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sqlite3.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tessera;
using namespace std::chrono_literals;

namespace {

std::string slurp(const fs::path &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void spit(const fs::path &p, std::string_view bytes)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool contains(const std::string &text, std::string_view part)
{
    return text.find(part) != std::string::npos;
}

// Runs raw SQL on a file, bypassing Project (fixtures and inspection).
std::string rawQuery(const fs::path &file, const std::string &sql)
{
    sqlite3 *db = nullptr;
    std::string out;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK) {
        sqlite3_exec(
            db, sql.c_str(),
            [](void *arg, int n, char **values, char **) {
                auto *o = static_cast<std::string *>(arg);
                for (int i = 0; i < n; ++i)
                    *o += std::string(values[i] ? values[i] : "NULL") + (i + 1 < n ? "|" : "\n");
                return 0;
            },
            &out, nullptr);
    }
    sqlite3_close(db);
    return out;
}

Overrides numbered(int i)
{
    // The key set changes with i too, so a mix of two states is visible.
    Overrides o;
    for (int j = 0; j < 20 + i % 17; ++j)
        o["fuse:node" + std::to_string(j)] = "option-" + std::to_string(i);
    return o;
}

class Store : public ::testing::Test
{
protected:
    void SetUp() override
    {
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() / ("tessera-store-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "models");
        spit(m_dir / "models" / "net.onnx", "not parsed by the store, only referenced");
    }
    void TearDown() override
    {
        fs::permissions(m_dir, fs::perms::owner_all, fs::perm_options::add);
        fs::remove_all(m_dir);
    }

    ProjectInfo info() const
    {
        ProjectInfo i;
        i.model.path = (m_dir / "models" / "net.onnx").string();
        i.model.structureHash = "0123456789abcdef";
        i.model.batch = 4;
        i.model.dims = {{"frames", 100}};
        i.setup = {"layer-fusion", "stcp920", {{"max_fuse", "3"}}};
        i.overrides = {{"fuse:conv1|relu1", "fused"}};
        return i;
    }
    fs::path file(const std::string &name = "p.tessera") const { return m_dir / name; }
    Project make(const std::string &name = "p.tessera") const
    {
        auto p = Project::create(file(name).string(), info());
        EXPECT_TRUE(p.isOk()) << p.status().str();
        return std::move(p).value();
    }

    fs::path m_dir;
};

// --- round trip ---------------------------------------------------------------

TEST_F(Store, EverythingRoundTripsThroughAReopen)
{
    const std::string planText(200000, 'x');
    std::int64_t planId = 0, runId = 0;
    {
        Project p = make();
        EXPECT_FALSE(p.readOnly());
        EXPECT_EQ(p.schemaVersion(), Project::currentSchemaVersion());
        ASSERT_TRUE(p.setSetup({"greedy", "nvidia-a100", {{"a", "1"}, {"b", "two"}}}).isOk());
        ASSERT_TRUE(p.setOverrides({{"k1", "o1"}, {"k2", "o2"}}, "two overrides").isOk());
        PlanSummary s{0, "", "greedy", "nvidia-a100", "0123456789abcdef", 1.25, 42, "first"};
        auto id = p.addPlan(planText, s);
        ASSERT_TRUE(id.isOk()) << id.status().str();
        planId = *id;
        auto run =
            p.addRun(planId, {0, 0, "", "reference", 3.5, {{"l2_hits", 7}, {"dram_mb", 1.5}}}, "{\"traceEvents\":[]}");
        ASSERT_TRUE(run.isOk()) << run.status().str();
        runId = *run;
        ASSERT_TRUE(p.setState("selected_step", "17").isOk());
        ASSERT_TRUE(p.setState("expanded_groups", "layer1,layer2").isOk());
        ASSERT_TRUE(p.close().isOk());
    }
    EXPECT_FALSE(fs::exists(file().string() + "-wal")) << "close checkpoints into the one file";

    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    EXPECT_TRUE(p->notes().empty());
    auto model = p->model();
    ASSERT_TRUE(model.isOk());
    EXPECT_EQ(model->relativePath, "models/net.onnx");
    EXPECT_EQ(model->absolutePath, (m_dir / "models" / "net.onnx").string());
    EXPECT_EQ(model->structureHash, "0123456789abcdef");
    EXPECT_EQ(model->fileBytes, static_cast<std::int64_t>(fs::file_size(m_dir / "models" / "net.onnx")));
    EXPECT_GT(model->mtimeNs, 0);
    EXPECT_EQ(model->batch, 4);
    EXPECT_EQ(model->seqLen, 128);
    EXPECT_EQ(model->dims, (std::map<std::string, std::int64_t>{{"frames", 100}}));

    auto setup = p->setup();
    ASSERT_TRUE(setup.isOk());
    EXPECT_EQ(setup->algorithm, "greedy");
    EXPECT_EQ(setup->device, "nvidia-a100");
    EXPECT_EQ(setup->options, (std::map<std::string, std::string>{{"a", "1"}, {"b", "two"}}));
    EXPECT_EQ(*p->overrides(), (Overrides{{"k1", "o1"}, {"k2", "o2"}}));

    auto plans = p->plans();
    ASSERT_TRUE(plans.isOk());
    ASSERT_EQ(plans->size(), 1u);
    const PlanSummary &s = plans->front();
    EXPECT_EQ(s.id, planId);
    EXPECT_EQ(s.algorithm, "greedy");
    EXPECT_EQ(s.kernels, 42);
    EXPECT_DOUBLE_EQ(s.estLatencyMs, 1.25);
    EXPECT_EQ(s.label, "first");
    EXPECT_EQ(s.created.size(), 24u) << s.created; // 2024-01-02T03:04:05.678Z
    EXPECT_EQ(*p->planJson(planId), planText);

    auto runs = p->runs(planId);
    ASSERT_TRUE(runs.isOk());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().id, runId);
    EXPECT_EQ(runs->front().backend, "reference");
    EXPECT_DOUBLE_EQ(runs->front().latencyMs, 3.5);
    EXPECT_EQ(runs->front().metrics, (std::map<std::string, double>{{"dram_mb", 1.5}, {"l2_hits", 7}}));
    EXPECT_EQ(*p->runTimeline(runId), "{\"traceEvents\":[]}");

    EXPECT_EQ(p->state("selected_step")->value_or(""), "17");
    EXPECT_EQ(p->allState()->size(), 2u);
}

// Plugin data: any bytes per (plugin, key), back after a reopen, kept apart
// from the UI state; twins: a reserved state key and a bad plugin name are refused.
TEST_F(Store, PluginDataRoundTripsThroughAReopen)
{
    const std::string blob("\x00\x01model\xff\x00", 9);
    {
        Project p = make();
        ASSERT_TRUE(p.setState("zoom", "2").isOk());
        ASSERT_TRUE(p.setPluginData("pcgc", "cost-model/stcp920", blob).isOk());
        ASSERT_TRUE(p.setPluginData("pcgc", "other", "x").isOk());
        ASSERT_TRUE(p.setPluginData("welder", "cache", "y").isOk());
        ASSERT_TRUE(p.removePluginData("pcgc", "other").isOk());
    }
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    auto back = p->pluginData("pcgc", "cost-model/stcp920");
    ASSERT_TRUE(back.isOk()) << back.status().str();
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(**back, blob); // byte for byte, NULs included
    EXPECT_FALSE(p->pluginData("pcgc", "other")->has_value());
    EXPECT_FALSE(p->pluginData("welder", "cost-model/stcp920")->has_value());
    auto all = p->allPluginData();
    ASSERT_TRUE(all.isOk());
    EXPECT_EQ(all->size(), 2u);
    EXPECT_EQ(all->at({"welder", "cache"}), "y");
    EXPECT_EQ(*p->allState(), (std::map<std::string, std::string>{{"zoom", "2"}})); // plugin data is not UI state

    // Twins: the UI state cannot write into the plugins' keys; a plugin needs a plain name.
    EXPECT_EQ(p->setState("plugin/pcgc/cost-model/stcp920", "x").code(), ErrorCode::Usage);
    EXPECT_EQ(p->setPluginData("", "k", "v").code(), ErrorCode::Usage);
    EXPECT_EQ(p->setPluginData("a/b", "k", "v").code(), ErrorCode::Usage);
    EXPECT_EQ(**p->pluginData("pcgc", "cost-model/stcp920"), blob);
}

TEST_F(Store, MissingPlansRunsAndStateAreReportedNotInvented)
{
    Project p = make();
    auto json = p.planJson(999);
    ASSERT_FALSE(json.isOk());
    EXPECT_EQ(json.status().code(), ErrorCode::Usage);
    EXPECT_EQ(json.status().message(), "no plan 999 in the project");
    EXPECT_FALSE(p.runTimeline(5).isOk());
    auto run = p.addRun(999, {}, "{}");
    ASSERT_FALSE(run.isOk());
    EXPECT_EQ(run.status().message(), "no plan 999 in the project");
    EXPECT_TRUE(p.runs(999)->empty());
    auto missing = p.state("never_set");
    ASSERT_TRUE(missing.isOk());
    EXPECT_FALSE(missing->has_value());
    ASSERT_TRUE(p.close().isOk());
    auto closed = p.overrides();
    ASSERT_FALSE(closed.isOk());
    EXPECT_EQ(closed.status().message(), "project is closed");
}

TEST_F(Store, CreateIsAtomicAndRefusesToOverwrite)
{
    {
        Project p = make();
    }
    auto again = Project::create(file().string(), info());
    ASSERT_FALSE(again.isOk());
    EXPECT_EQ(again.status().code(), ErrorCode::Usage);
    EXPECT_TRUE(contains(again.status().str(), "already exists"));
    ProjectInfo other = info();
    other.setup.algorithm = "greedy";
    auto replaced = Project::create(file().string(), other, /*overwrite=*/true);
    ASSERT_TRUE(replaced.isOk()) << replaced.status().str();
    EXPECT_EQ(replaced->setup()->algorithm, "greedy");

    // A failing create (the model is missing) leaves nothing behind.
    ProjectInfo broken = info();
    broken.model.path = (m_dir / "nope.onnx").string();
    auto failed = Project::create(file("broken.tessera").string(), broken);
    ASSERT_FALSE(failed.isOk());
    EXPECT_TRUE(contains(failed.status().str(), "nope.onnx"));
    for (const auto &entry : fs::directory_iterator(m_dir))
        EXPECT_FALSE(contains(entry.path().filename().string(), "broken")) << entry.path();
}

TEST_F(Store, TransactionIsAllOrNothing)
{
    Project p = make();
    Status s = p.transaction([&]() -> Status {
        TS_TRY(p.setOverrides({{"a", "b"}}));
        EXPECT_TRUE(p.addPlan("{}", {}).isOk());
        return Status::invalid("the caller changed its mind");
    });
    EXPECT_EQ(s.message(), "the caller changed its mind");
    EXPECT_EQ(*p.overrides(), info().overrides);
    EXPECT_TRUE(p.plans()->empty());

    ASSERT_TRUE(p.transaction([&]() -> Status {
                     TS_TRY(p.setOverrides({{"a", "b"}}));
                     return p.addPlan("{}", {}).status();
                 }).isOk());
    EXPECT_EQ(*p.overrides(), (Overrides{{"a", "b"}}));
    EXPECT_EQ(p.plans()->size(), 1u);
}

// --- override history -----------------------------------------------------------

TEST_F(Store, UndoRedoSurvivesAReopen)
{
    {
        Project p = make();
        ASSERT_TRUE(p.setOverrides({{"k", "b"}}, "b").isOk());
        ASSERT_TRUE(p.setOverrides({{"k", "c"}}, "c").isOk());
        auto undone = p.undoOverrides();
        ASSERT_TRUE(undone.isOk());
        EXPECT_EQ(*undone, (Overrides{{"k", "b"}}));
    }
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk());
    EXPECT_EQ(*p->overrides(), (Overrides{{"k", "b"}}));
    auto h = p->overrideHistory();
    ASSERT_TRUE(h.isOk());
    ASSERT_EQ(h->steps.size(), 3u);
    EXPECT_EQ(h->steps[0].label, "created");
    EXPECT_EQ(h->steps[2].label, "c");
    EXPECT_EQ(h->current, h->steps[1].step);
    EXPECT_TRUE(h->canUndo());
    EXPECT_TRUE(h->canRedo());
    EXPECT_EQ(*p->redoOverrides(), (Overrides{{"k", "c"}}));
    EXPECT_EQ(*p->undoOverrides(), (Overrides{{"k", "b"}}));
    EXPECT_EQ(*p->undoOverrides(), info().overrides);

    // A new edit after undo drops the redo tail.
    ASSERT_TRUE(p->setOverrides({{"k", "d"}}, "d").isOk());
    h = p->overrideHistory();
    ASSERT_EQ(h->steps.size(), 2u);
    EXPECT_FALSE(h->canRedo());
    EXPECT_EQ(h->steps.back().label, "d");
}

TEST_F(Store, UndoAtTheStartAndUnchangedEditsAreNoHistory)
{
    Project p = make();
    auto undo = p.undoOverrides();
    ASSERT_FALSE(undo.isOk());
    EXPECT_EQ(undo.status().message(), "nothing to undo");
    auto redo = p.redoOverrides();
    ASSERT_FALSE(redo.isOk());
    EXPECT_EQ(redo.status().message(), "nothing to redo");
    ASSERT_TRUE(p.setOverrides(info().overrides, "same again").isOk());
    EXPECT_EQ(p.overrideHistory()->steps.size(), 1u);
}

TEST_F(Store, HistoryIsBounded)
{
    Project p = make();
    ASSERT_TRUE(p.transaction([&]() -> Status {
                     for (int i = 0; i < Project::kMaxHistory + 20; ++i)
                         TS_TRY(p.setOverrides({{"k", std::to_string(i)}}));
                     return Status::ok();
                 }).isOk());
    auto h = p.overrideHistory();
    EXPECT_EQ(static_cast<std::int64_t>(h->steps.size()), Project::kMaxHistory);
    EXPECT_EQ(*p.overrides(), (Overrides{{"k", std::to_string(Project::kMaxHistory + 19)}}));
}

// --- model reference --------------------------------------------------------------

TEST_F(Store, ModelIsFoundRelativeToTheProjectThenAbsolute)
{
    {
        Project p = make();
    }
    // Project and model move together: the relative path finds the copy.
    const fs::path moved = m_dir / "moved";
    fs::create_directories(moved);
    fs::copy(m_dir / "models", moved / "models");
    fs::copy_file(file(), moved / "p.tessera");
    {
        auto p = Project::open((moved / "p.tessera").string());
        ASSERT_TRUE(p.isOk());
        EXPECT_EQ(*p->modelPath(), (moved / "models" / "net.onnx").string());
    }
    // The project moves alone: the absolute path still finds the original.
    fs::remove_all(moved / "models");
    {
        auto p = Project::open((moved / "p.tessera").string());
        EXPECT_EQ(*p->modelPath(), (m_dir / "models" / "net.onnx").string());
    }
    // Neither exists: an error naming both places.
    fs::remove_all(m_dir / "models");
    auto p = Project::open((moved / "p.tessera").string());
    auto path = p->modelPath();
    ASSERT_FALSE(path.isOk());
    EXPECT_EQ(path.status().code(), ErrorCode::InvalidInput);
    EXPECT_TRUE(contains(path.status().message(), (moved / "models" / "net.onnx").string())) << path.status().str();
    EXPECT_TRUE(contains(path.status().message(), (m_dir / "models" / "net.onnx").string()));
}

// --- session state and the autosaver -------------------------------------------------

// Issue 18: a bundled sample is referenced by name and version, not by a path into a cache folder.
TEST_F(Store, ASampleIsReferencedByNameAndVersionNotByPath)
{
    ProjectInfo i = info();
    i.model.path = (m_dir / "models" / "net.onnx").string(); // the build imported now; not stored
    i.model.sample = "squeezenet";
    i.model.sampleVersion = 3;
    i.model.dataFiles = {"net.onnx.data"};
    {
        auto p = Project::create(file().string(), i);
        ASSERT_TRUE(p.isOk()) << p.status().str();
    }
    fs::remove_all(m_dir / "models"); // a cleared cache changes nothing
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    auto m = p->model();
    ASSERT_TRUE(m.isOk());
    EXPECT_EQ(m->sample, "squeezenet");
    EXPECT_EQ(m->sampleVersion, 3);
    EXPECT_EQ(m->structureHash, "0123456789abcdef");
    EXPECT_TRUE(m->path.empty());
    EXPECT_TRUE(m->contentHash.empty());
    EXPECT_TRUE(m->dataFiles.empty());
    EXPECT_EQ(rawQuery(file(), "SELECT model_relative || '|' || model_absolute FROM project"), "|\n")
        << "no path into the cache is stored";
    auto path = p->modelPath();
    ASSERT_FALSE(path.isOk());
    EXPECT_EQ(path.status().code(), ErrorCode::Usage);
    EXPECT_TRUE(contains(path.status().message(), "the sample 'squeezenet' (version 3)")) << path.status().str();
}

// Negative twin: a file keeps its relative path and records its content hash (with its data files).
TEST_F(Store, AFileIsReferencedByPathAndContentHash)
{
    spit(m_dir / "models" / "net.onnx.data", "weights");
    ProjectInfo i = info();
    i.model.dataFiles = {"net.onnx.data"};
    {
        auto p = Project::create(file().string(), i);
        ASSERT_TRUE(p.isOk()) << p.status().str();
    }
    auto p = Project::open(file().string());
    auto m = p->model();
    ASSERT_TRUE(m.isOk());
    EXPECT_TRUE(m->sample.empty());
    EXPECT_EQ(m->relativePath, "models/net.onnx");
    EXPECT_EQ(m->contentHash.size(), 16u);
    EXPECT_EQ(m->dataFiles, std::vector<std::string>{"net.onnx.data"});
    EXPECT_FALSE(m->embed);
    EXPECT_TRUE(p->checkModelContent(*p->modelPath()).isOk());
}

TEST_F(Store, AChangedModelFileOrItsWeightsAreRecognised)
{
    spit(m_dir / "models" / "net.onnx.data", "weights");
    ProjectInfo i = info();
    i.model.dataFiles = {"net.onnx.data"};
    Project p = [&] {
        auto created = Project::create(file().string(), i);
        EXPECT_TRUE(created.isOk()) << created.status().str();
        return std::move(*created);
    }();
    const std::string model = (m_dir / "models" / "net.onnx").string();
    ASSERT_TRUE(p.checkModelContent(model).isOk());      // the twin: unchanged is fine
    spit(m_dir / "models" / "net.onnx.data", "weightz"); // same size, other bytes
    Status changed = p.checkModelContent(model);
    EXPECT_EQ(changed.code(), ErrorCode::InvalidInput);
    EXPECT_TRUE(contains(changed.message(), "model file changed since the project was saved (content hash "))
        << changed.str();
    EXPECT_EQ(changed.location().file, model);
    spit(m_dir / "models" / "net.onnx.data", "weights");
    EXPECT_TRUE(p.checkModelContent(model).isOk());
    spit(m_dir / "models" / "net.onnx", "another model");
    EXPECT_EQ(p.checkModelContent(model).code(), ErrorCode::InvalidInput);
}

TEST_F(Store, AnEmbeddedModelComesBackWhenTheFileIsGone)
{
    spit(m_dir / "models" / "net.onnx.data", "weights");
    ProjectInfo i = info();
    i.model.dataFiles = {"net.onnx.data"};
    i.model.embed = true;
    {
        auto p = Project::create(file().string(), i);
        ASSERT_TRUE(p.isOk()) << p.status().str();
    }
    const std::string original = slurp(m_dir / "models" / "net.onnx");
    fs::remove_all(m_dir / "models");
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk());
    EXPECT_TRUE(p->model()->embed);
    EXPECT_FALSE(p->modelPath().isOk()) << "the file is gone";
    auto extracted = p->extractModel((m_dir / "out").string());
    ASSERT_TRUE(extracted.isOk()) << extracted.status().str();
    EXPECT_EQ(*extracted, (m_dir / "out" / "net.onnx").string());
    EXPECT_EQ(slurp(*extracted), original);
    EXPECT_EQ(slurp(m_dir / "out" / "net.onnx.data"), "weights");
    EXPECT_TRUE(p->checkModelContent(*extracted).isOk());
    // Dropping the copy: nothing to extract any more.
    ModelRef ref = *p->model();
    ref.path = *extracted;
    ref.embed = false;
    ASSERT_TRUE(p->setModel(ref).isOk());
    EXPECT_EQ(rawQuery(file(), "SELECT count(*) FROM model_files"), "0\n");
}

// Negative twin: a model that is not embedded cannot be extracted.
TEST_F(Store, AModelThatIsNotEmbeddedIsNotExtracted)
{
    Project p = make();
    EXPECT_FALSE(p.model()->embed);
    auto extracted = p.extractModel((m_dir / "out").string());
    ASSERT_FALSE(extracted.isOk());
    EXPECT_EQ(extracted.status().code(), ErrorCode::Usage);
    EXPECT_EQ(extracted.status().message(), "the project does not embed its model");
    EXPECT_FALSE(fs::exists(m_dir / "out" / "net.onnx"));
}

TEST_F(Store, AutosaverBatchesStateAndReopenRestoresIt)
{
    {
        Project p = make();
        Autosaver saver(p, 100ms);
        for (int i = 0; i <= 50; ++i)
            saver.setState("selected_step", std::to_string(i)); // scrubbing
        saver.setState("expanded_groups", "layer1");
        EXPECT_EQ(saver.state("selected_step")->value_or(""), "50"); // pending value is visible
        EXPECT_FALSE(p.state("selected_step")->has_value());         // but not yet written
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (saver.saves() == 0 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(5ms);
        EXPECT_EQ(saver.saves(), 1) << "one transaction for the whole batch";
        EXPECT_EQ(p.state("selected_step")->value_or(""), "50");
        saver.setState("zoom", "2.5");
        saver.removeState("expanded_groups");
    } // the destructor flushes the last changes
    auto p = Project::open(file().string());
    EXPECT_EQ(*p->allState(), (std::map<std::string, std::string>{{"selected_step", "50"}, {"zoom", "2.5"}}));
}

TEST_F(Store, AutosaverKeepsChangesItCouldNotSave)
{
    {
        Project p = make();
    }
    auto p = Project::open(file().string(), OpenMode::ReadOnly);
    ASSERT_TRUE(p.isOk());
    Autosaver saver(*p, 10s);
    saver.setState("selected_step", "3");
    Status s = saver.flush();
    ASSERT_FALSE(s.isOk());
    EXPECT_TRUE(contains(s.message(), "read-only")) << s.str();
    EXPECT_TRUE(saver.pending());
    EXPECT_EQ(saver.saves(), 0);
    EXPECT_FALSE(saver.lastStatus().isOk());
}

// --- migration -----------------------------------------------------------------------

// A project as Tessera with schema v1 wrote it, built from the frozen v1 step.
void writeV1Project(const fs::path &path, const fs::path &model)
{
    auto db = store::Db::open(path.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path.string(), 1000);
    ASSERT_TRUE(db.isOk());
    ASSERT_TRUE(store::migrate(*db, 0, 1).isOk());
    ASSERT_TRUE(db->exec("INSERT INTO project VALUES (1, 'models/net.onnx', '" + model.string() +
                         "', 'feedfacefeedface', 41, 0, 'greedy', 'stcp920', 1, '2024-01-01T00:00:00.000Z');"
                         "INSERT INTO override_steps VALUES (1, 'created', '2024-01-01T00:00:00.000Z');"
                         "INSERT INTO override_items VALUES (1, 'fuse:a|b', 'fused');"
                         "INSERT INTO plans VALUES (1, '2024-01-01T00:00:00.000Z', 'greedy', 'stcp920', "
                         "'feedfacefeedface', 2.5, 9, 'v1', '{}');"
                         "INSERT INTO runs VALUES (1, 1, '2024-01-01T00:00:00.000Z', 'reference', 2.75, "
                         "'{\"l2_hits\": 12, \"dram_mb\": 0.5, \"note\": \"text\"}', '[]');")
                    .isOk());
}

TEST_F(Store, AVersionOneFileIsMigrated)
{
    writeV1Project(file(), m_dir / "models" / "net.onnx");
    EXPECT_EQ(rawQuery(file(), "PRAGMA user_version"), "1\n");
    {
        auto p = Project::open(file().string());
        ASSERT_TRUE(p.isOk()) << p.status().str();
        EXPECT_EQ(p->schemaVersion(), 5);
        ASSERT_EQ(p->notes().size(), 1u);
        EXPECT_EQ(p->notes()[0].message, "upgraded the project from schema v1 to v5");
        // v3: the path reference stays, with no sample and no content hash recorded yet.
        EXPECT_TRUE(p->model()->sample.empty());
        EXPECT_TRUE(p->model()->contentHash.empty());
        EXPECT_TRUE(p->checkModelContent((m_dir / "models" / "net.onnx").string()).isOk());
        // v4: a project from before the scheduling precision schedules at fp32.
        EXPECT_EQ(p->setup()->precision, DType::Float32);
        // v5: and with estimated costs.
        EXPECT_EQ(p->setup()->cost, kCostEstimated);
        EXPECT_EQ(p->setup()->meter, "");
        EXPECT_EQ(*p->overrides(), (Overrides{{"fuse:a|b", "fused"}}));
        auto runs = p->runs(1);
        ASSERT_TRUE(runs.isOk()) << runs.status().str();
        ASSERT_EQ(runs->size(), 1u);
        EXPECT_EQ(runs->front().metrics, (std::map<std::string, double>{{"dram_mb", 0.5}, {"l2_hits", 12}}));
        ASSERT_TRUE(p->setState("selected_step", "4").isOk()); // the v2 table exists
    }
    EXPECT_EQ(rawQuery(file(), "PRAGMA user_version"), "5\n");
    EXPECT_EQ(rawQuery(file(), "SELECT version FROM schema_history ORDER BY version"), "1\n2\n3\n4\n5\n");
    auto again = Project::open(file().string());
    ASSERT_TRUE(again.isOk());
    EXPECT_TRUE(again->notes().empty()) << "migrates once";
    EXPECT_EQ(again->state("selected_step")->value_or(""), "4");
}

// The deployment precision is part of the setup: saved, reopened, replaced.
TEST_F(Store, SetupKeepsTheSchedulingPrecision)
{
    {
        Project p = make();
        ProjectSetup setup = *p.setup();
        EXPECT_EQ(setup.precision, DType::Float32);
        setup.precision = DType::Int8;
        ASSERT_TRUE(p.setSetup(setup).isOk());
    }
    EXPECT_EQ(rawQuery(file(), "SELECT precision FROM project"), "int8\n");
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    EXPECT_EQ(p->setup()->precision, DType::Int8);
}

// Negative twin: a precision this build does not know is refused by name, not read as fp32.
TEST_F(Store, AnUnknownPrecisionIsRefused)
{
    {
        Project p = make();
    }
    rawQuery(file(), "UPDATE project SET precision = 'int4'");
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    auto setup = p->setup();
    ASSERT_FALSE(setup.isOk());
    EXPECT_NE(setup.status().message().find("unknown scheduling precision 'int4'"), std::string::npos)
        << setup.status().str();
}

// The cost source is part of the setup: saved, reopened, replaced.
TEST_F(Store, SetupKeepsTheCostSource)
{
    {
        Project p = make();
        ProjectSetup setup = *p.setup();
        EXPECT_EQ(setup.cost, kCostEstimated);
        EXPECT_EQ(setup.meter, "");
        setup.cost = kCostMeasured;
        setup.meter = "sim";
        ASSERT_TRUE(p.setSetup(setup).isOk());
    }
    EXPECT_EQ(rawQuery(file(), "SELECT cost, cost_meter FROM project"), "measured|sim\n");
    {
        auto p = Project::open(file().string());
        ASSERT_TRUE(p.isOk()) << p.status().str();
        ProjectSetup setup = *p->setup();
        EXPECT_EQ(setup.cost, kCostMeasured);
        EXPECT_EQ(setup.meter, "sim");
        setup.meter.clear(); // measured on the device's default backend
        ASSERT_TRUE(p->setSetup(setup).isOk());
    }
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    EXPECT_EQ(p->setup()->cost, kCostMeasured);
    EXPECT_EQ(p->setup()->meter, "");
}

// Negative twin: an unknown cost source, or a meter with estimated costs, is
// refused on the way in and on the way out, not read as estimated.
TEST_F(Store, AnUnknownCostSourceIsRefused)
{
    {
        Project p = make();
        ProjectSetup setup = *p.setup();
        setup.cost = "guessed";
        const Status s = p.setSetup(setup);
        ASSERT_FALSE(s.isOk());
        EXPECT_NE(s.message().find("unknown cost source 'guessed'"), std::string::npos) << s.str();
        setup.cost = kCostEstimated;
        setup.meter = "cpu";
        EXPECT_FALSE(p.setSetup(setup).isOk());
    }
    EXPECT_EQ(rawQuery(file(), "SELECT cost, cost_meter FROM project"), "estimated|\n");
    rawQuery(file(), "UPDATE project SET cost = 'guessed'");
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    auto setup = p->setup();
    ASSERT_FALSE(setup.isOk());
    EXPECT_NE(setup.status().message().find("unknown cost source 'guessed'"), std::string::npos)
        << setup.status().str();
}

TEST_F(Store, AFileFromTheFutureIsRefusedNotMigrated)
{
    {
        Project p = make();
    }
    rawQuery(file(), "PRAGMA user_version = 6");
    const std::string before = slurp(file());
    auto p = Project::open(file().string());
    ASSERT_FALSE(p.isOk());
    EXPECT_EQ(p.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(p.status().location().file, file().string());
    EXPECT_EQ(p.status().message(), "project was saved by a newer Tessera (schema v6; this build reads up to v5)");
    EXPECT_EQ(slurp(file()), before);
    EXPECT_EQ(rawQuery(file(), "PRAGMA user_version"), "6\n");
}

TEST_F(Store, AReadOnlyVersionOneFileIsMigratedInMemoryOnly)
{
    writeV1Project(file(), m_dir / "models" / "net.onnx");
    const std::string before = slurp(file());
    auto p = Project::open(file().string(), OpenMode::ReadOnly);
    ASSERT_TRUE(p.isOk()) << p.status().str();
    EXPECT_TRUE(p->readOnly());
    EXPECT_EQ(p->schemaVersion(), 5);
    EXPECT_EQ(p->runs(1)->front().metrics.at("l2_hits"), 12);
    ASSERT_FALSE(p->notes().empty());
    EXPECT_TRUE(contains(p->notes().back().message, "in memory only")) << p->notes().back().message;
    EXPECT_FALSE(p->setState("k", "v").isOk());
    EXPECT_TRUE(p->close().isOk());
    EXPECT_EQ(slurp(file()), before);
}

// --- bad files -------------------------------------------------------------------------

struct BadFile {
    const char *name;
    std::string message; // expected Status message
};

class BadFiles : public Store
{
protected:
    // Opening must fail with InvalidInput naming the file, and leave it as it was.
    void expectRefused(const fs::path &path, const std::string &message)
    {
        SCOPED_TRACE(path.filename().string());
        const std::string before = slurp(path);
        for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::ReadOnly}) {
            auto p = Project::open(path.string(), mode);
            ASSERT_FALSE(p.isOk());
            EXPECT_EQ(p.status().code(), ErrorCode::InvalidInput) << p.status().str();
            EXPECT_EQ(p.status().location().file, path.string());
            EXPECT_EQ(p.status().message(), message);
            EXPECT_TRUE(contains(p.status().str(), path.string()));
        }
        EXPECT_EQ(slurp(path), before) << "a failed open never modifies the file";
        EXPECT_FALSE(fs::exists(path.string() + "-wal"));
        EXPECT_FALSE(fs::exists(path.string() + "-journal"));
    }
};

TEST_F(BadFiles, RandomBytesAndOtherFormatsAreNotProjects)
{
    std::mt19937 rng(7);
    std::string noise(8192, '\0');
    for (char &c : noise)
        c = static_cast<char>(rng());
    spit(file("noise.tessera"), noise);
    expectRefused(file("noise.tessera"), "not a tessera project (not an SQLite database)");
    spit(file("plan.tessera"), R"({"format_version": 1, "plan": {}})");
    expectRefused(file("plan.tessera"), "not a tessera project (not an SQLite database)");
    spit(file("empty.tessera"), "");
    expectRefused(file("empty.tessera"), "not a tessera project (empty file)");
    // SQLite's magic followed by garbage.
    spit(file("header.tessera"), std::string("SQLite format 3\0", 16) + noise);
    expectRefused(file("header.tessera"), "not a tessera project (not an SQLite database)");
}

TEST_F(BadFiles, ASqliteDatabaseWithoutOurSchemaIsNotAProject)
{
    rawQuery(file("other.db"),
             "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos VALUES (1, 'a')");
    expectRefused(file("other.db"), "not a tessera project (an SQLite database of another application)");
    rawQuery(file("blank.db"), "CREATE TABLE t(x); DROP TABLE t"); // a valid database with no tables
    expectRefused(file("blank.db"), "not a tessera project (an empty SQLite database)");
    // Our id, but tables gone.
    {
        Project p = make("damaged.tessera");
    }
    rawQuery(file("damaged.tessera"), "DROP TABLE plans");
    expectRefused(file("damaged.tessera"), "project file is incomplete (no table 'plans')");
}

TEST_F(BadFiles, TruncatedAndScribbledProjectsAreCorrupt)
{
    {
        Project p = make("whole.tessera");
        for (int i = 0; i < 8; ++i)
            ASSERT_TRUE(p.addPlan(std::string(20000, char('a' + i)), {}).isOk());
    }
    const std::string whole = slurp(file("whole.tessera"));
    ASSERT_GT(whole.size(), 16u * 4096);

    spit(file("truncated.tessera"), whole.substr(0, whole.size() / 2 + 1000));
    auto t = Project::open(file("truncated.tessera").string());
    ASSERT_FALSE(t.isOk());
    EXPECT_EQ(t.status().code(), ErrorCode::InvalidInput);
    EXPECT_TRUE(t.status().message().starts_with("project file is corrupt")) << t.status().str();
    expectRefused(file("truncated.tessera"), t.status().message());

    std::string scribbled = whole;
    std::mt19937 rng(11);
    for (std::size_t i = 4096; i < 3 * 4096; ++i) // pages 2 and 3: schema and table roots
        scribbled[i] = static_cast<char>(rng());
    spit(file("scribbled.tessera"), scribbled);
    auto s = Project::open(file("scribbled.tessera").string());
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.status().code(), ErrorCode::InvalidInput);
    EXPECT_TRUE(s.status().message().starts_with("project file is corrupt")) << s.status().str();
    expectRefused(file("scribbled.tessera"), s.status().message());

    auto missing = Project::open(file("nope.tessera").string());
    ASSERT_FALSE(missing.isOk());
    EXPECT_EQ(missing.status().message(), "no such project file");
    EXPECT_EQ(missing.status().location().file, file("nope.tessera").string());
}

// --- locks and read-only files --------------------------------------------------------------

TEST_F(Store, ALockedProjectFailsClearlyInsteadOfHanging)
{
    {
        Project p = make();
    }
    int toParent[2], toChild[2];
    ASSERT_EQ(::pipe(toParent), 0);
    ASSERT_EQ(::pipe(toChild), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) { // another Tessera: takes the write lock and holds it
        sqlite3 *db = nullptr;
        sqlite3_open(file().c_str(), &db);
        const int rc = sqlite3_exec(db, "BEGIN IMMEDIATE; DELETE FROM session_state;", nullptr, nullptr, nullptr);
        char c = rc == SQLITE_OK ? 'L' : 'E';
        (void)!::write(toParent[1], &c, 1);
        (void)!::read(toChild[0], &c, 1); // until the parent has seen the lock
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        ::_exit(0);
    }
    char c = 0;
    ASSERT_EQ(::read(toParent[0], &c, 1), 1);
    ASSERT_EQ(c, 'L');

    auto p = Project::open(file().string(), OpenMode::ReadWrite, {.busyTimeoutMs = 200});
    ASSERT_TRUE(p.isOk()) << p.status().str(); // readers are not blocked in WAL mode
    EXPECT_EQ(*p->overrides(), info().overrides);
    const auto start = std::chrono::steady_clock::now();
    Status s = p->setOverrides({{"k", "v"}});
    const auto waited = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.code(), ErrorCode::Io);
    EXPECT_TRUE(s.message().starts_with("project is locked by another Tessera")) << s.str();
    EXPECT_EQ(s.location().file, file().string());
    EXPECT_GE(waited, 150ms);
    EXPECT_LT(waited, 3s);

    (void)!::write(toChild[1], "x", 1);
    int status = 0;
    ::waitpid(child, &status, 0);
    // The lock is gone: the same save now succeeds, and the earlier failure lost nothing.
    EXPECT_EQ(*p->overrides(), info().overrides);
    ASSERT_TRUE(p->setOverrides({{"k", "v"}}).isOk());
    for (int fd : {toParent[0], toParent[1], toChild[0], toChild[1]})
        ::close(fd);
}

TEST_F(Store, ReadOnlyModeRefusesWritesAndLosesNothing)
{
    {
        Project p = make();
    }
    const std::string before = slurp(file());
    auto p = Project::open(file().string(), OpenMode::ReadOnly);
    ASSERT_TRUE(p.isOk());
    EXPECT_TRUE(p->readOnly());
    EXPECT_EQ(*p->overrides(), info().overrides);
    Status s = p->setOverrides({{"k", "v"}});
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.code(), ErrorCode::Io);
    EXPECT_EQ(s.message(), "project is read-only (saving overrides refused)");
    EXPECT_FALSE(p->addPlan("{}", {}).isOk());
    EXPECT_FALSE(p->undoOverrides().isOk());
    ASSERT_TRUE(p->close().isOk());
    EXPECT_EQ(slurp(file()), before);
}

// A file the user may not write opens read-only with a note. As root the
// check needs an unprivileged user, so the open runs in a child as 'nobody'.
TEST_F(Store, AnUnwritableFileOpensReadOnlyWithANote)
{
    {
        Project p = make();
    }
    const std::string before = slurp(file());
    fs::permissions(file(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(m_dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
            ::_exit(10);
        auto p = Project::open(file().string());
        if (!p.isOk()) {
            std::fprintf(stderr, "open: %s\n", p.status().str().c_str());
            ::_exit(11);
        }
        if (!p->readOnly() || p->notes().empty() || !contains(p->notes().front().message, "read-only"))
            ::_exit(12);
        if (*p->overrides() != Overrides{{"fuse:conv1|relu1", "fused"}})
            ::_exit(13);
        Status s = p->setOverrides({{"k", "v"}});
        if (s.isOk() || !contains(s.message(), "read-only"))
            ::_exit(14);
        ::_exit(p->close().isOk() ? 0 : 15);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10 setuid, 11 open, 12 no note, 13 content, 14 write allowed, 15 close";
    EXPECT_EQ(slurp(file()), before);
}

// --- SIGKILL during saves ---------------------------------------------------------------

TEST_F(Store, KillDuringSaveKeepsTheLastCommittedOverrides)
{
    {
        Project p = make();
    }
    const unsigned seed = static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    int base = 0;
    for (int iteration = 0; iteration < 10; ++iteration) {
        int pipeFd[2];
        ASSERT_EQ(::pipe(pipeFd), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            ::close(pipeFd[0]);
            auto p = Project::open(file().string());
            if (!p.isOk())
                ::_exit(1);
            for (int i = base;; ++i) {
                if (!p->setOverrides(numbered(i)).isOk())
                    ::_exit(2);
                (void)!::write(pipeFd[1], &i, sizeof i); // after the commit returned
            }
        }
        ::close(pipeFd[1]);
        std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 400)); // ~10 ms per save
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the child failed on its own: exit " << WEXITSTATUS(status);
        int last = base - 1, i = 0;
        while (::read(pipeFd[0], &i, sizeof i) == sizeof i)
            last = i;
        ::close(pipeFd[0]);

        EXPECT_EQ(rawQuery(file(), "PRAGMA integrity_check"), "ok\n");
        auto p = Project::open(file().string());
        ASSERT_TRUE(p.isOk()) << p.status().str();
        const Overrides got = *p->overrides();
        // The last acknowledged save, or the one after it if the kill came between
        // its commit and its acknowledgement — never a mix.
        const bool lastAcked =
            last < base ? got == (base == 0 ? info().overrides : numbered(base - 1)) : got == numbered(last);
        EXPECT_TRUE(lastAcked || got == numbered(last + 1))
            << "iteration " << iteration << ": last acknowledged " << last << ", found " << got.size()
            << " overrides, first = " << (got.empty() ? "" : got.begin()->second);
        base = last + 2; // the next child continues with fresh numbers
        ASSERT_TRUE(p->setOverrides(numbered(base - 1)).isOk());
    }
}

} // namespace
