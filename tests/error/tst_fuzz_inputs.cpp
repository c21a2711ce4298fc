// The fuzz targets' inputs as ordinary tests (tests/fuzz, docs/fuzzing.md), so
// every build checks them without clang or libFuzzer:
//  - every committed seed (tests/fuzz/corpus/<format>) is still accepted by the
//    reader its target fuzzes, so the corpora keep reaching the deep code as the
//    formats evolve; a seed named "refused-*" reaches a refusal path and must
//    still be refused;
//  - every finding (tests/fuzz/findings/<format>, the minimised input that
//    crashed, hung or tripped a sanitizer) is now refused with its specific
//    diagnostic, listed in kFindings below.
#include "core/hw/devicejson.h"
#include "core/io/schedulejson.h"
#include "core/onnx/importer.h"
#include "core/store/project.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"

#include <QByteArray>
#include <QString>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

#include "tests/fuzz/fig31.h"

namespace fs = std::filesystem;
using namespace tessera;

namespace {

const fs::path kFuzzDir = fs::path(TESSERA_SOURCE_DIR) / "tests" / "fuzz";

std::string slurp(const fs::path &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<fs::path> filesIn(const fs::path &dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file())
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// What each target does with its input, as a Status (ok: accepted).
Status readAs(const std::string &format, const fs::path &file)
{
    const std::string bytes = slurp(file);
    const std::string name = file.filename().string();
    if (format == "import") {
        ImportOptions options;
        options.maxTensorBytes = std::int64_t(64) << 20;
        options.fold.maxElements = 1 << 16;
        auto r = importModelFromBytes(bytes, std::string(), options);
        return r ? r->graph.verify() : r.status();
    }
    if (format == "iosconfig") {
        auto r = importIosConfig(bytes, name);
        if (!r)
            return r.status();
        return iosUnitsOf(*r).status();
    }
    const fuzz::Fig31 &f = fuzz::fig31();
    if (format == "iosschedule")
        return parseIosSchedule(bytes, f.model.graph, f.units, name).status();
    if (format == "schedulejson")
        return scheduleFromJson(bytes, f.model.graph, name).status();
    if (format == "overrides")
        return overridesFromJson(bytes, name).status();
    if (format == "device")
        return parseDevice(QByteArray::fromStdString(bytes), QString::fromStdString(name)).status();
    if (format == "project") {
        // Opened from a copy: opening may migrate or recover a file.
        const fs::path copy =
            fs::temp_directory_path() / ("tessera-fuzz-input-" + std::to_string(::getpid()) + ".tessera");
        fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
        Status s;
        {
            auto p = Project::open(copy.string(), OpenMode::ReadWrite);
            s = p ? p->overrides().status() : p.status();
        }
        for (const char *suffix : {"", "-wal", "-shm"})
            fs::remove(copy.string() + suffix);
        return s;
    }
    return Status::invalid("unknown format " + format);
}

const char *const kFormats[] = {"import", "iosconfig", "iosschedule", "schedulejson", "overrides", "device", "project"};

TEST(FuzzInputs, EverySeedIsAcceptedOrRefusedAsNamed)
{
    int seeds = 0;
    for (const char *format : kFormats) {
        const auto files = filesIn(kFuzzDir / "corpus" / format);
        EXPECT_FALSE(files.empty()) << "no seeds for " << format;
        for (const fs::path &file : files) {
            ++seeds;
            Status s = readAs(format, file);
            if (file.filename().string().starts_with("refused-"))
                EXPECT_FALSE(s.isOk()) << format << " seed " << file.filename() << " is now accepted";
            else
                EXPECT_TRUE(s.isOk()) << format << " seed " << file.filename() << ": " << s.str();
        }
    }
    EXPECT_GE(seeds, 7);
}

// Each finding, minimised or as found, with the diagnostic its fix gives.
struct Finding {
    const char *format, *file, *message;
};
const Finding kFindings[] = {
    // A trace step's "numbers" entry that is not a two-element array was indexed past its end
    // (QJsonArray::operator[] on an empty array: SEGV in Qt).
    {"schedulejson", "numbers-entry-too-short.json", "trace[0].numbers[0]: expected [name, number]"},
    // A conv with ~10^13 output channels asked ModelBuilder for a ~6e15-byte weight (ASan:
    // allocation-size-too-big).
    {"iosconfig", "huge-out-channels.json", "its weights exceed 134217728 parameters in all"},
    // A bandwidth that overflows in its unit ("1e308 TB/s") parsed as infinity and was written back
    // as "inf B/s", which parseDevice refuses: the round trip of fuzz_device failed.
    {"device", "overflowing-bandwidth.json", "levels[0].bandwidth: expected a finite quantity, got '1e308 TB/s'"},
};

TEST(FuzzInputs, EveryFindingIsRefusedWithItsDiagnostic)
{
    std::size_t listed = 0;
    for (const Finding &f : kFindings) {
        SCOPED_TRACE(std::string(f.format) + "/" + f.file);
        const Status s = readAs(f.format, kFuzzDir / "findings" / f.format / f.file);
        ASSERT_FALSE(s.isOk());
        EXPECT_NE(s.message().find(f.message), std::string::npos) << s.str();
        ++listed;
    }
    // Every committed finding is listed above.
    std::size_t files = 0;
    for (const char *format : kFormats)
        files += filesIn(kFuzzDir / "findings" / format).size();
    EXPECT_EQ(files, listed);
}

// The negative twin: a seed cut in half is refused, so the check above is not
// vacuous.
TEST(FuzzInputs, ATruncatedSeedIsRefused)
{
    for (const char *format : {"iosconfig", "schedulejson", "device"}) {
        const fs::path seed = filesIn(kFuzzDir / "corpus" / format).front();
        const fs::path cut = fs::temp_directory_path() / ("tessera-fuzz-cut-" + std::to_string(::getpid()) + ".json");
        const std::string bytes = slurp(seed);
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
        EXPECT_FALSE(readAs(format, cut).isOk()) << format;
        fs::remove(cut);
    }
}

} // namespace
