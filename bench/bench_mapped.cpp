// bench_mapped: heap and time to first run of a model whose weights live in an
// external data file (issue 11 item 5: weights memory-mapped, never copied).
//
// The model is an MLP, x[1,4096] through `layers` MatMul(4096×4096)+Relu, its
// weights (64 MiB a layer) in one side file next to the .onnx. Each run, in a
// forked child (so heap and RSS are its own): import (weights stay lazy),
// compile on the backend, run once. Two ways of loading the weights:
//   mapped — the backend loads them (loadTensorData: a view into the file's
//            shared read-only mapping), what Tessera does now;
//   copied — every weight read into the heap first with readExternalData
//            (pread), then compiled: what loadTensorData did before.
// Heap is mallinfo2's uordblks + hblkhd (malloc's arena in use plus its mmapped
// blocks; file mappings are not heap), sampled after import, compile and run:
// the peak of those samples minus the heap before import is printed, with
// wait4()'s peak RSS (which counts the mapped file's resident pages too).
//
// Usage: bench_mapped [runs=3] [layers=4] [backend=reference|cpu|both]
#include "backends/cpu/cpu.h"
#include "backends/reference/reference.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/external_data.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "plugins/sequential/sequential.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <onnx/onnx_pb.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace tessera;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kWidth = 4096;
constexpr std::int64_t kLayerBytes = kWidth * kWidth * 4;

std::int64_t heapInUse()
{
    const struct mallinfo2 m = ::mallinfo2();
    return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Writes dir/mlp.onnx and dir/mlp.bin (weights 0.001·((i·7919) mod 17 − 8), per layer).
bool writeModel(const fs::path &dir, int layers)
{
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto *g = m.mutable_graph();
    g->set_name("mlp");
    auto valueInfo = [](::onnx::ValueInfoProto *v, const std::string &name) {
        v->set_name(name);
        auto *t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(::onnx::TensorProto::FLOAT);
        t->mutable_shape()->add_dim()->set_dim_value(1);
        t->mutable_shape()->add_dim()->set_dim_value(kWidth);
    };
    valueInfo(g->add_input(), "x");
    std::ofstream bin(dir / "mlp.bin", std::ios::binary);
    std::vector<float> row(static_cast<std::size_t>(kWidth));
    std::string prev = "x";
    for (int l = 0; l < layers; ++l) {
        const std::string w = "W" + std::to_string(l), mm = "mm" + std::to_string(l), y = "y" + std::to_string(l);
        for (std::int64_t r = 0; r < kWidth; ++r) {
            for (std::int64_t c = 0; c < kWidth; ++c)
                row[static_cast<std::size_t>(c)] = 0.001f * static_cast<float>(((r * kWidth + c + l) * 7919) % 17 - 8);
            bin.write(reinterpret_cast<const char *>(row.data()), static_cast<std::streamsize>(kWidth * 4));
        }
        auto *init = g->add_initializer();
        init->set_name(w);
        init->set_data_type(::onnx::TensorProto::FLOAT);
        init->add_dims(kWidth);
        init->add_dims(kWidth);
        init->set_data_location(::onnx::TensorProto::EXTERNAL);
        for (const auto &[k, v] : {std::pair<std::string, std::string>{"location", "mlp.bin"},
                                   {"offset", std::to_string(l * kLayerBytes)},
                                   {"length", std::to_string(kLayerBytes)}}) {
            auto *e = init->add_external_data();
            e->set_key(k);
            e->set_value(v);
        }
        auto *n = g->add_node();
        n->set_op_type("MatMul");
        n->set_name(mm);
        n->add_input(prev);
        n->add_input(w);
        n->add_output(mm + ":0");
        auto *relu = g->add_node();
        relu->set_op_type("Relu");
        relu->set_name("relu" + std::to_string(l));
        relu->add_input(mm + ":0");
        relu->add_output(y);
        prev = y;
    }
    valueInfo(g->add_output(), prev);
    std::ofstream out(dir / "mlp.onnx", std::ios::binary);
    return bin.good() && m.SerializeToOstream(&out);
}

struct Sample {
    double importMs = 0, compileMs = 0, runMs = 0, firstRunMs = 0; // firstRunMs: import start to outputs
    std::int64_t peakHeap = 0;                                     // above the heap before import
};

// In the child: import, (copy), compile, run once. 0 on success.
int firstRun(const std::string &model, const std::string &backendName, bool copy, Sample &s)
{
    const std::int64_t base = heapInUse();
    std::int64_t peak = 0;
    auto sample = [&] { peak = std::max(peak, heapInUse() - base); };
    const auto t0 = std::chrono::steady_clock::now();
    auto imported = importModel(model);
    if (!imported)
        return 3;
    Graph g = std::move(imported->graph);
    s.importMs = msSince(t0);
    sample();
    if (copy) // the pre-mapping loadTensorData: pread into an inline vector
        for (std::size_t i = 0; i < g.tensorCount(); ++i) {
            Tensor &t = g.tensor(static_cast<TensorId>(i));
            if (!t.data || !t.data->isExternal())
                continue;
            auto bytes = readExternalData(*t.data->external);
            if (!bytes)
                return 4;
            auto inl = std::make_shared<TensorData>();
            inl->dtype = t.data->dtype;
            inl->shape = t.data->shape;
            inl->bytes = std::move(*bytes);
            t.data = std::move(inl);
        }
    auto device = DeviceRegistry::standard().lookup("stcp920");
    if (!device)
        return 5;
    auto plan = scheduleGraph(g, *device, *createSequentialScheduler(), {});
    if (!plan)
        return 6;
    std::unique_ptr<IBackend> backend = backendName == "cpu" ? createCpuBackend() : createReferenceBackend();
    const auto t1 = std::chrono::steady_clock::now();
    auto compiled = backend->compile(g, plan->result.plan);
    if (!compiled)
        return 7;
    s.compileMs = msSince(t1);
    sample();
    HostTensor x{"x", DType::Float32, {1, kWidth}, std::vector<std::uint8_t>(static_cast<std::size_t>(kWidth) * 4)};
    for (std::int64_t i = 0; i < kWidth; ++i)
        x.f32()[i] = static_cast<float>(i % 13) / 13.f;
    const auto t2 = std::chrono::steady_clock::now();
    auto r = backend->run(**compiled, {x}, {});
    if (!r)
        return 8;
    s.runMs = msSince(t2);
    s.firstRunMs = msSince(t0);
    sample();
    s.peakHeap = peak;
    return 0;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    const int layers = argc > 2 ? std::clamp(std::atoi(argv[2]), 1, 64) : 4;
    const std::string which = argc > 3 ? argv[3] : "both";
    const fs::path dir = fs::temp_directory_path() / ("tessera-bench-mapped-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    if (!writeModel(dir, layers)) {
        std::fprintf(stderr, "bench_mapped: cannot write the model to %s\n", dir.c_str());
        return 2;
    }
    const double weightsMb = static_cast<double>(layers * kLayerBytes) / (1024.0 * 1024.0);
    std::printf("MLP, %d × MatMul %lld×%lld + Relu, %.0f MiB of weights in mlp.bin\n", layers,
                static_cast<long long>(kWidth), static_cast<long long>(kWidth), weightsMb);
    std::printf("%-10s %-7s %9s %10s %9s %9s %12s %11s %9s\n", "backend", "weights", "import ms", "compile ms",
                "run ms", "first ms", "peak heap MiB", "heap/weights", "RSS MiB");
    std::vector<std::string> backends;
    if (which == "both" || which == "reference")
        backends.push_back("reference");
    if (which == "both" || which == "cpu")
        backends.push_back("cpu");
    int rc = 0;
    for (const std::string &backend : backends) {
        std::vector<double> first[2], heap[2];
        for (int i = 0; i < runs; ++i)
            for (int copy : {1, 0}) { // alternate before/after
                int fds[2];
                if (::pipe(fds) != 0)
                    return 2;
                const pid_t pid = ::fork();
                if (pid == 0) {
                    ::close(fds[0]);
                    Sample s;
                    const int code = firstRun((dir / "mlp.onnx").string(), backend, copy != 0, s);
                    const ssize_t w = ::write(fds[1], &s, sizeof s);
                    ::_exit(w == static_cast<ssize_t>(sizeof s) ? code : 9);
                }
                ::close(fds[1]);
                Sample s;
                const ssize_t got = ::read(fds[0], &s, sizeof s);
                ::close(fds[0]);
                int status = 0;
                rusage usage{};
                if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
                    WEXITSTATUS(status) != 0 || got != static_cast<ssize_t>(sizeof s)) {
                    std::fprintf(stderr, "bench_mapped: %s run failed (exit %d)\n", backend.c_str(),
                                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
                    rc = 2;
                    continue;
                }
                const double heapMb = static_cast<double>(s.peakHeap) / (1024.0 * 1024.0);
                first[copy].push_back(s.firstRunMs);
                heap[copy].push_back(heapMb);
                std::printf("%-10s %-7s %9.0f %10.0f %9.0f %9.0f %12.1f %11.2fx %9.0f\n", backend.c_str(),
                            copy ? "copied" : "mapped", s.importMs, s.compileMs, s.runMs, s.firstRunMs, heapMb,
                            heapMb / weightsMb, static_cast<double>(usage.ru_maxrss) / 1024.0);
                std::fflush(stdout);
            }
        if (!first[0].empty() && !first[1].empty())
            std::printf("%-10s median: peak heap %.1f → %.1f MiB (%.3fx), time to first run %.0f → %.0f ms (%.2fx)\n",
                        backend.c_str(), median(heap[1]), median(heap[0]),
                        median(heap[0]) / std::max(median(heap[1]), 1e-9), median(first[1]), median(first[0]),
                        median(first[0]) / std::max(median(first[1]), 1e-9));
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return rc;
}
