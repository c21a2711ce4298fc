// Crash-safe saves (core/store/project.h "Durability"): a child process saves a
// project and is killed with SIGKILL at a random moment, 100 times through the
// store API (override saves, and atomic saves of a plan + overrides + session
// state, as the workbench's ProjectSession does) and 100 times through
// tessera-cli (`project create --force` replacing the file, `replay` adding a
// plan). After every kill the project must open, pass SQLite's
// `PRAGMA integrity_check`, and still hold every override whose save had
// returned before the kill.
//
// The CLI rounds start from the worst state a crash leaves: a writer killed
// right after a commit, so the project has a non-empty -wal beside it when
// `project create --force` replaces the file.
#include "core/store/project.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sqlite3.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace tessera;

namespace {

constexpr int kRounds = 100;

// Runs one query on the file with plain SQLite (read-write, so a -wal left by
// a killed writer is recovered first, as any later open would).
std::string rawQuery(const fs::path &file, const std::string &sql)
{
    sqlite3 *db = nullptr;
    std::string out;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
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

// The overrides after `n` acknowledged saves: every earlier key stays, so a
// lost save shows as a missing key.
Overrides savedUpTo(int n)
{
    Overrides o{{"base:key", "kept"}};
    for (int i = 0; i < n; ++i)
        o["save:" + std::to_string(i)] = "option-" + std::to_string(i % 7);
    return o;
}

bool holdsAll(const Overrides &got, const Overrides &want)
{
    for (const auto &[key, option] : want) {
        auto it = got.find(key);
        if (it == got.end() || it->second != option)
            return false;
    }
    return true;
}

class KillSave : public ::testing::Test
{
protected:
    void SetUp() override
    {
        const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                ("tessera-killsave-" + std::string(test->name()) + "-" + std::to_string(::getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        const unsigned seed = static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
        m_rng.seed(seed);
        m_seed = seed;
    }
    void TearDown() override { fs::remove_all(m_dir); }

    fs::path file() const { return m_dir / "p.tessera"; }

    static std::string cli() { return std::string(TESSERA_BINARY_DIR) + "/app/tessera-cli"; }

    // Runs tessera-cli to completion (fixtures).
    int runCli(const std::string &args) const
    {
        const std::string cmd = cli() + " " + args + " >" + (m_dir / "out").string() + " 2>&1";
        const int status = std::system(cmd.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    // Forks `child`, kills it with SIGKILL after `delay`, reaps it. Returns
    // whether it was killed (false: it finished first, with exit code `code`).
    template <typename F> bool killAfter(std::chrono::microseconds delay, F &&child, int *code = nullptr)
    {
        const pid_t pid = ::fork();
        if (pid == 0) {
            child();
            ::_exit(0);
        }
        EXPECT_GT(pid, 0);
        std::this_thread::sleep_for(delay);
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (code)
            *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return WIFSIGNALED(status);
    }

    // The checks after a kill: integrity, then the project opens and holds `want`.
    void expectIntact(const Overrides &want, int round)
    {
        SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(m_seed));
        ASSERT_EQ(rawQuery(file(), "PRAGMA integrity_check"), "ok\n");
        auto p = Project::open(file().string());
        ASSERT_TRUE(p.isOk()) << p.status().str();
        auto got = p->overrides();
        ASSERT_TRUE(got.isOk()) << got.status().str();
        EXPECT_TRUE(holdsAll(*got, want))
            << "lost an override: " << got->size() << " found, " << want.size() << " saved before the kill";
        ASSERT_TRUE(p->close().isOk());
    }

    fs::path m_dir;
    std::mt19937 m_rng;
    unsigned m_seed = 0;
};

TEST_F(KillSave, StoreApiSavesSurviveSigkill)
{
    ProjectInfo info;
    info.model.path = (m_dir / "net.onnx").string();
    std::ofstream(m_dir / "net.onnx") << "not read by the store";
    info.setup = {"layer-fusion", "stcp920", {}};
    info.overrides = savedUpTo(0);
    ASSERT_TRUE(Project::create(file().string(), info).isOk());

    int acknowledged = 0; // saves that returned ok before a kill
    int killed = 0;
    for (int round = 0; round < kRounds; ++round) {
        int pipeFd[2];
        ASSERT_EQ(::pipe(pipeFd), 0);
        const bool atomicSaves = round % 2 == 1;
        const int first = acknowledged;
        const bool wasKilled = killAfter(std::chrono::microseconds(m_rng() % 60000), [&] {
            ::close(pipeFd[0]);
            auto p = Project::open(file().string());
            if (!p.isOk())
                ::_exit(3);
            for (int n = first + 1;; ++n) {
                Status s = atomicSaves ? p->transaction([&]() -> Status {
                    auto plan = p->addPlan("{\"plan\": " + std::to_string(n) + "}", PlanSummary{});
                    if (!plan)
                        return plan.status();
                    TS_TRY(p->setOverrides(savedUpTo(n), "save"));
                    return p->setState("selected_step", std::to_string(n));
                })
                                       : p->setOverrides(savedUpTo(n), "save");
                if (!s.isOk())
                    ::_exit(4);
                (void)!::write(pipeFd[1], &n, sizeof n); // only after the save returned
            }
        });
        ::close(pipeFd[1]);
        ASSERT_TRUE(wasKilled) << "the saving child failed on its own";
        ++killed;
        int n = 0;
        while (::read(pipeFd[0], &n, sizeof n) == sizeof n)
            acknowledged = n;
        ::close(pipeFd[0]);
        expectIntact(savedUpTo(acknowledged), round);
        if (HasFatalFailure())
            return;
    }
    std::printf("store API: %d saves acknowledged over %d kills\n", acknowledged, killed);
    EXPECT_EQ(killed, kRounds);
    EXPECT_GT(acknowledged, 0) << "no save finished before a kill: the delays are too short";
}

// Negative twin of the checks: a project whose -wal belongs to another
// database is what the CLI rounds below must never leave behind, and the
// checks above do notice a lost override.
TEST_F(KillSave, TheChecksNoticeALostOverride)
{
    ProjectInfo info;
    info.model.path = (m_dir / "net.onnx").string();
    std::ofstream(m_dir / "net.onnx") << "x";
    info.overrides = savedUpTo(3);
    ASSERT_TRUE(Project::create(file().string(), info).isOk());
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk());
    EXPECT_TRUE(holdsAll(*p->overrides(), savedUpTo(3)));
    EXPECT_FALSE(holdsAll(*p->overrides(), savedUpTo(4)));
}

// The finding of the CLI rounds, deterministic: replacing a project whose
// killed writer left a -wal must not replay that -wal into the new file.
TEST_F(KillSave, ReplacingAProjectIgnoresTheOldFilesWal)
{
    ProjectInfo info;
    info.model.path = (m_dir / "net.onnx").string();
    std::ofstream(m_dir / "net.onnx") << "x";
    info.overrides = savedUpTo(1);
    ASSERT_TRUE(Project::create(file().string(), info).isOk());
    const pid_t writer = ::fork();
    if (writer == 0) {
        auto p = Project::open(file().string());
        for (int n = 2; n < 40 && p.isOk(); ++n) // enough pages for the -wal to reach every table
            (void)p->setOverrides(savedUpTo(n), "save");
        ::kill(::getpid(), SIGKILL);
    }
    ASSERT_GT(writer, 0);
    int status = 0;
    ::waitpid(writer, &status, 0);
    ASSERT_GT(fs::file_size(file().string() + "-wal"), 0u);

    info.overrides = {{"fresh:key", "new"}};
    auto replaced = Project::create(file().string(), info, /*overwrite=*/true);
    ASSERT_TRUE(replaced.isOk()) << replaced.status().str();
    ASSERT_TRUE(replaced->close().isOk());
    EXPECT_EQ(rawQuery(file(), "PRAGMA integrity_check"), "ok\n");
    auto p = Project::open(file().string());
    ASSERT_TRUE(p.isOk()) << p.status().str();
    EXPECT_EQ(*p->overrides(), info.overrides);
}

TEST_F(KillSave, CliSavesSurviveSigkill)
{
    ASSERT_EQ(runCli("sample nerf-mlp --out " + (m_dir / "net.onnx").string()), 0);
    const std::string create = "project create " + file().string() + " --model " + (m_dir / "net.onnx").string() +
                               " --algo layer-fusion --device stcp920 --force --override ";
    auto writeOverrides = [&](int n) {
        std::ofstream out(m_dir / "overrides.json", std::ios::trunc);
        out << "{";
        bool first = true;
        for (const auto &[key, option] : savedUpTo(n)) {
            out << (first ? "" : ",") << "\"" << key << "\": \"" << option << "\"";
            first = false;
        }
        out << "}";
    };
    writeOverrides(0);
    const int createCode = runCli(create + (m_dir / "overrides.json").string());
    ASSERT_TRUE(createCode == 0 || createCode == 3) << "exit " << createCode; // 3: overrides unused by the model

    // How long one save takes here, so the kills land inside it.
    const auto t0 = std::chrono::steady_clock::now();
    const int replayCode = runCli("replay " + file().string() + " --force");
    ASSERT_TRUE(replayCode == 0 || replayCode == 3) << "exit " << replayCode;
    const auto span = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);

    int acknowledged = 0, killed = 0;
    for (int round = 0; round < kRounds; ++round) {
        // A writer killed right after its commit: the -wal holds that save.
        const int n = acknowledged + 1;
        const pid_t writer = ::fork();
        if (writer == 0) {
            auto p = Project::open(file().string());
            if (!p.isOk() || !p->setOverrides(savedUpTo(n), "save").isOk())
                ::_exit(3);
            ::kill(::getpid(), SIGKILL); // no close, no checkpoint
        }
        ASSERT_GT(writer, 0);
        int status = 0;
        ::waitpid(writer, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed: exit " << WEXITSTATUS(status);
        acknowledged = n;
        ASSERT_TRUE(fs::exists(file().string() + "-wal"));

        // Then the CLI saves, and is killed somewhere along the way.
        const bool replace = round % 2 == 0;
        if (replace)
            writeOverrides(acknowledged + 1);
        const std::string args =
            replace ? create + (m_dir / "overrides.json").string() : "replay " + file().string() + " --force";
        const auto delay = std::chrono::microseconds(m_rng() % (span.count() * 5 / 4 + 1));
        int code = -1;
        const bool wasKilled = killAfter(
            delay,
            [&] {
                const std::string out = (m_dir / "out").string();
                ::execl("/bin/sh", "sh", "-c", ("exec " + cli() + " " + args + " >" + out + " 2>&1").c_str(),
                        static_cast<char *>(nullptr));
                ::_exit(127);
            },
            &code);
        if (wasKilled)
            ++killed;
        else
            ASSERT_TRUE(code == 0 || code == 3) << "round " << round << ": tessera-cli " << args << " exit " << code;
        if (replace && !wasKilled)
            acknowledged += 1; // the file was replaced with one more override
        expectIntact(savedUpTo(acknowledged), round);
        if (HasFatalFailure())
            return;
    }
    std::printf("tessera-cli killed mid-save in %d of %d rounds (one save: %lld us)\n", killed, kRounds,
                static_cast<long long>(span.count()));
    EXPECT_GT(killed, kRounds / 4) << "too few kills landed inside a save";
}

} // namespace
