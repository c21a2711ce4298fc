// bench_store: how long saving a project takes (core/store/project.h).
//
// Target: saving a project — the overrides plus a ResNet-50-sized plan JSON
// in one transaction, durable on return (WAL, synchronous=FULL) — under 50 ms.
// Also times the smaller saves the workbench makes (an override edit, an
// Autosaver batch of session state) and reopening a project with many plans
// (open runs PRAGMA quick_check). Prints median, p95 and max per operation;
// exits 1 when the project save misses its target.
//
// The plan is a synthetic schedule document of `plan_kb` KiB (default 1024;
// a real ResNet-50 document is 0.25–0.6 MB: layer-fusion, greedy), or a real
// one when a path is given.
//
// Usage: bench_store [iterations=30] [plan_kb=1024 | PLAN.json]
#include "core/store/autosaver.h"
#include "core/store/project.h"
#include "core/support/fileio.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tessera;
namespace fs = std::filesystem;

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Kernels, tasks and decisions shaped like scheduleToJson's output.
std::string syntheticPlan(std::size_t bytes)
{
    std::string json = R"({"format":"tessera-schedule","format_version":1,"algorithm":"ios","plan":{"kernels":[)";
    for (int k = 0; json.size() < bytes / 2; ++k)
        json += (k ? "," : "") + std::string(R"({"id":)") + std::to_string(k) + R"(,"name":"k)" + std::to_string(k) +
                R"(:layer3.)" + std::to_string(k % 6) +
                R"(/conv2+bn2+relu","nodes":["layer3.conv2","layer3.bn2",)"
                R"("layer3.relu"],"strategy":"fused","tasks":[{"binding":{"cluster":0,"core":)" +
                std::to_string(k % 32) + R"(},"cost":{"time_ns":12345.678,"bytes":{"DDR":802816,"LLB":401408}}}]})";
    json += R"(]},"decisions":[)";
    for (int d = 0; json.size() < bytes; ++d)
        json += (d ? "," : "") + std::string(R"({"key":"ios.ending:layer2.)") + std::to_string(d) +
                R"(","options":[{"id":"{conv1,conv2}|concurrent","cost":0.0421,"detail":"2 streams, 0.042 ms"},)"
                R"({"id":"{conv1,conv2}|merge","cost":0.0398,"detail":"merged conv, 0.040 ms"}],"chosen":1})";
    return json + "]}";
}

Overrides manyOverrides(int variant)
{
    Overrides o;
    for (int i = 0; i < 200; ++i)
        o["ios.ending:layer" + std::to_string(i / 16) + "." + std::to_string(i % 16)] =
            i == variant % 200 ? "merge" : "concurrent";
    return o;
}

struct Timing {
    std::string name;
    std::vector<double> ms;
    void report() const
    {
        std::vector<double> s = ms;
        std::sort(s.begin(), s.end());
        std::printf("%-40s median %7.2f ms   p95 %7.2f ms   max %7.2f ms   (n=%zu)\n", name.c_str(), s[s.size() / 2],
                    s[std::min(s.size() - 1, s.size() * 95 / 100)], s.back(), s.size());
    }
    double max() const { return *std::max_element(ms.begin(), ms.end()); }
    double p95() const
    {
        std::vector<double> s = ms;
        std::sort(s.begin(), s.end());
        return s[std::min(s.size() - 1, s.size() * 95 / 100)];
    }
};

int fail(const Status &s)
{
    std::fprintf(stderr, "bench_store: %s\n", s.str().c_str());
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    const int iterations = argc > 1 ? std::max(3, std::atoi(argv[1])) : 30;
    std::string plan;
    if (argc > 2 && fs::exists(argv[2])) {
        auto text = readFile(argv[2]);
        if (!text)
            return fail(text.status());
        plan = std::move(*text);
    } else {
        plan = syntheticPlan(std::size_t(argc > 2 ? std::max(1, std::atoi(argv[2])) : 1024) * 1024);
    }

    const fs::path dir = fs::temp_directory_path() / ("tessera-bench-store-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path model = dir / "model.onnx";
    if (Status s = writeFileAtomic(model.string(), "stand-in model"); !s.isOk())
        return fail(s);
    const std::string path = (dir / "bench.tessera").string();
    ProjectInfo info;
    info.model.path = model.string();
    info.model.structureHash = "bcd43c54e6effcf7";
    info.setup = {"ios", "stcp920", {{"strategy", "both"}, {"r", "3"}}};
    info.overrides = manyOverrides(0);

    Timing create{"create a project"}, project{"save project (overrides + plan)"}, edit{"save one override edit"},
        state{"autosave 5 state keys"}, reopen{"reopen (quick_check)"};
    int status = 0;
    {
        auto t0 = std::chrono::steady_clock::now();
        auto p = Project::create(path, info);
        if (!p)
            return fail(p.status());
        create.ms.push_back(msSince(t0));
        PlanSummary summary{0, "", "ios", "stcp920", "bcd43c54e6effcf7", 6.4457, 56, "bench"};
        Autosaver saver(*p, std::chrono::hours(1)); // flushed by hand below
        for (int i = 1; i <= iterations; ++i) {
            t0 = std::chrono::steady_clock::now();
            Status s = p->transaction([&]() -> Status {
                TS_TRY(p->setOverrides(manyOverrides(2 * i), "bench"));
                return p->addPlan(plan, summary).status();
            });
            if (!s.isOk())
                return fail(s);
            project.ms.push_back(msSince(t0));

            t0 = std::chrono::steady_clock::now();
            if (Status e = p->setOverrides(manyOverrides(2 * i + 1)); !e.isOk())
                return fail(e);
            edit.ms.push_back(msSince(t0));

            for (const char *key : {"selected_step", "expanded_groups", "zoom", "scroll", "selected_kernel"})
                saver.setState(key, std::to_string(i));
            t0 = std::chrono::steady_clock::now();
            if (Status f = saver.flush(); !f.isOk())
                return fail(f);
            state.ms.push_back(msSince(t0));
        }
        if (Status c = p->close(); !c.isOk())
            return fail(c);
    }
    for (int i = 0; i < std::min(iterations, 10); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto p = Project::open(path);
        if (!p)
            return fail(p.status());
        reopen.ms.push_back(msSince(t0));
    }

    std::printf("bench_store: plan JSON %.0f KiB, 200 overrides, %d iterations, project file %.1f MiB at the end\n",
                plan.size() / 1024.0, iterations, fs::file_size(path) / 1048576.0);
    for (const Timing *t : {&create, &project, &edit, &state, &reopen})
        t->report();
    const bool ok = project.p95() < 50.0;
    std::printf("target: save project p95 < 50 ms: %s (p95 %.2f ms, max %.2f ms)\n", ok ? "PASS" : "FAIL",
                project.p95(), project.max());
    status = ok ? 0 : 1;
    fs::remove_all(dir);
    return status;
}
