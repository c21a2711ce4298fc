// Runs the built tessera-cli the way a shell user does, for the end-to-end
// CLI tests (tst_cli, tst_clisim, tst_replay, tst_weldercli, tst_pcgccli):
// one command line through std::system, stdout and stderr captured in files,
// the exit code as the test sees it. CliSuite is the fixture those tests share:
// one temporary folder per test suite, removed after it.
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tessera::test {

struct CliResult {
    int code = -1; // the exit code; -1 when the process did not exit normally
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs `tessera-cli args` with stdout and stderr written to files in `dir`.
// `env` ("NAME=value NAME=value"), when given, is set for this run only.
inline CliResult runCli(const std::filesystem::path &dir, const std::string &args, const std::string &env = {})
{
    const std::filesystem::path out = dir / "stdout", err = dir / "stderr";
    const std::string cmd = (env.empty() ? std::string() : env + " ") + std::string(TESSERA_BINARY_DIR) +
                            "/app/tessera-cli " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

// The JSON object a command printed (empty when the text is not one).
inline QJsonObject jsonObject(const std::string &text)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

// Fixture base for a CLI test suite: `Suite::kDirName` names the suite's
// temporary folder s_dir (the process id is appended, since ctest runs test
// processes in parallel).
template <typename Suite> class CliSuite : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir =
            std::filesystem::temp_directory_path() / (std::string(Suite::kDirName) + "-" + std::to_string(::getpid()));
        std::filesystem::create_directories(s_dir);
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(s_dir); }

    using Result = CliResult;
    static std::string slurp(const std::filesystem::path &p) { return tessera::test::slurp(p); }

    static CliResult run(const std::string &args) { return runCli(s_dir, args); }
    static QJsonObject json(const CliResult &r) { return jsonObject(r.out); }
    static QJsonObject json(const std::string &text) { return jsonObject(text); }
    // The sample model `name` written once per suite as s_dir/<name>.onnx
    // (`extra`: sample options such as --image-size).
    static std::string sample(const std::string &name, const std::string &extra = {})
    {
        const std::filesystem::path p = s_dir / (name + ".onnx");
        if (!std::filesystem::exists(p)) {
            const CliResult r = run("sample " + name + " --out " + p.string() + " " + extra);
            EXPECT_EQ(r.code, 0) << r.err;
        }
        return p.string();
    }

    static inline std::filesystem::path s_dir;
};

} // namespace tessera::test
