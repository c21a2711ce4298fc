// libFuzzer target: arbitrary bytes as a project file (*.tessera, an SQLite
// database; core/store/project.h). The bytes are written to a file in a
// private temporary folder ($TMPDIR; /dev/shm makes SQLite's fsyncs free) and
// opened as a project, read-write (so an old schema is migrated) and
// read-only; a file that opens is then read in full and written once. A
// corrupted database must be refused with a Status, not trusted: no crash,
// hang or sanitizer report whatever the tables hold.
#include "core/store/project.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace {

// A private folder for the run, removed at exit.
struct TempFolder {
    std::string path;
    TempFolder()
    {
        path = (std::filesystem::temp_directory_path() / "tessera-fuzz-project-XXXXXX").string();
        if (!::mkdtemp(path.data()))
            std::abort();
    }
    ~TempFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

const std::string &folder()
{
    static const TempFolder dir;
    return dir.path;
}

void removeFiles(const std::string &path)
{
    std::error_code ec;
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(path + suffix, ec);
}

void readAll(tessera::Project &p)
{
    (void)p.schemaVersion();
    (void)p.notes();
    (void)p.model();
    (void)p.modelPath();
    (void)p.setup();
    (void)p.overrides();
    (void)p.overrideHistory();
    (void)p.allState();
    (void)p.state("selected_step");
    if (auto plans = p.plans()) {
        for (const tessera::PlanSummary &plan : *plans) {
            (void)p.planJson(plan.id);
            if (auto runs = p.runs(plan.id))
                for (const tessera::RunRecord &run : *runs)
                    (void)p.runTimeline(run.id);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string path = folder() + "/fuzz.tessera";
    removeFiles(path);
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    tessera::OpenOptions options;
    options.busyTimeoutMs = 0;
    if (auto ro = tessera::Project::open(path, tessera::OpenMode::ReadOnly, options)) {
        readAll(*ro);
        (void)ro->close();
    }
    if (auto rw = tessera::Project::open(path, tessera::OpenMode::ReadWrite, options)) {
        readAll(*rw);
        (void)rw->setOverrides({{"fuzz:key", "a"}}, "fuzz");
        (void)rw->undoOverrides();
        (void)rw->redoOverrides();
        (void)rw->setState("selected_step", "1");
        readAll(*rw);
        (void)rw->close();
    }
    removeFiles(path);
    return 0;
}
