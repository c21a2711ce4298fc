// bench_perfcounters: what the CPU backend's event counters cost a run
// (backends/cpu/perfcounters.h; issue 13). The backend opens perf_event_open(2)
// events for every thread of the process on its first run and keeps them; a
// run enables them when it starts and disables and reads them when it ends.
// This times, alone, with 0, 2, 8 and 32 extra threads alive in the process
// (the events are per thread: a GUI with its thread pools has dozens):
//   per run     start + stop + report on counters kept open (what a run pays);
//   open+close  the same on counters opened for the round and closed after it
//               (what every run paid before they were kept, and what a run pays
//               now when another run of the backend holds its counters);
// against a baseline of the same loop without the counters. Prints, per
// thread count: the median and 90th percentile µs of each over N rounds, how
// many times the kept counters were opened, and what was counted or is
// unavailable here.
//
// Usage: bench_perfcounters [rounds=200]
// Links: tessera_backend_cpu.
#include "backends/cpu/perfcounters.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace tessera;

namespace {

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

} // namespace

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    std::atomic<bool> stop{false};
    std::vector<std::thread> idle;
    std::printf("%-14s %12s %12s %12s %12s %12s %6s  %s\n", "extra threads", "run median", "run p90", "open median",
                "open p90", "baseline us", "opens", "counted");
    for (int extra : {0, 2, 8, 32}) {
        while (static_cast<int>(idle.size()) < extra)
            idle.emplace_back([&stop] {
                while (!stop.load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
            });
        std::vector<double> run, open, base;
        std::map<std::string, double> metrics;
        cpu::PerfCounters kept; // opened on the first round (not timed)
        kept.start();
        kept.stop();
        for (int r = 0; r < rounds; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            kept.start();
            kept.stop();
            metrics.clear();
            kept.report(metrics);
            const auto t1 = std::chrono::steady_clock::now();
            {
                cpu::PerfCounters fresh;
                fresh.start();
                fresh.stop();
                std::map<std::string, double> m;
                fresh.report(m);
            }
            const auto t2 = std::chrono::steady_clock::now();
            std::map<std::string, double> empty; // the loop without counters
            empty["x"] = r;
            const auto t3 = std::chrono::steady_clock::now();
            run.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            open.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
            base.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
        }
        std::string counted;
        for (const auto &[k, v] : metrics)
            counted +=
                (counted.empty() ? "" : "; ") + k +
                (k.find("unavailable") == std::string::npos ? "=" + std::to_string(static_cast<long long>(v)) : "");
        std::printf("%-14d %12.1f %12.1f %12.1f %12.1f %12.2f %6d  %s\n", extra, percentile(run, 0.5),
                    percentile(run, 0.9), percentile(open, 0.5), percentile(open, 0.9), percentile(base, 0.5),
                    kept.opens(), counted.c_str());
    }
    stop = true;
    for (std::thread &t : idle)
        t.join();
    return 0;
}
