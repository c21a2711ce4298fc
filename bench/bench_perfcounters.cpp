// bench_perfcounters: what opening the CPU backend's event counters costs a
// run (backends/cpu/perfcounters.h; issue 13). A run of the CPU backend opens
// perf_event_open(2) events for every thread of the process when it starts
// and reads and closes them when it ends; this times that open + report +
// close, alone, with 0, 2, 8 and 32 extra threads alive in the process (the
// events are opened per thread: a GUI with its thread pools has dozens),
// against a baseline of the same loop without the counters. Prints, per
// thread count: the median and 90th percentile µs per open+report+close over
// N rounds, how many events were opened and what is unavailable here.
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
    std::printf("%-14s %12s %12s %12s  %s\n", "extra threads", "median us", "p90 us", "baseline us", "counted");
    for (int extra : {0, 2, 8, 32}) {
        while (static_cast<int>(idle.size()) < extra)
            idle.emplace_back([&stop] {
                while (!stop.load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
            });
        std::vector<double> us, base;
        std::map<std::string, double> metrics;
        for (int r = 0; r < rounds; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            {
                const cpu::PerfCounters counters;
                metrics.clear();
                counters.report(metrics);
            }
            const auto t1 = std::chrono::steady_clock::now();
            std::map<std::string, double> empty; // the loop without counters
            empty["x"] = r;
            const auto t2 = std::chrono::steady_clock::now();
            us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            base.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
        }
        std::string counted;
        for (const auto &[k, v] : metrics)
            counted +=
                (counted.empty() ? "" : "; ") + k +
                (k.find("unavailable") == std::string::npos ? "=" + std::to_string(static_cast<long long>(v)) : "");
        std::printf("%-14d %12.1f %12.1f %12.2f  %s\n", extra, percentile(us, 0.5), percentile(us, 0.9),
                    percentile(base, 0.5), counted.c_str());
    }
    stop = true;
    for (std::thread &t : idle)
        t.join();
    return 0;
}
