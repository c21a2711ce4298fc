// A generated graph for bench/bench_stalls, tests/views/tst_responsiveness and
// tests/backends/tst_cancellatency: a
// layered DAG of `stages` × `blocks` × `ops` unary/binary ops on [1, 16] (each
// op reads its predecessor, every fourth also a value four ops back), with one
// scope per stage and block, saved as an ONNX file.
#pragma once

#include "core/onnx/modelbuilder.h"

#include <QString>

#include <cstdio>
#include <string>
#include <vector>

namespace tessera::test {

inline bool writeBigGraph(const QString &path, int stages, int blocks, int ops)
{
    ModelBuilder b("dag-20k", 7);
    std::string x = b.input("x", {1, 16});
    for (int s = 0; s < stages; ++s) {
        ScopeGuard stage(b, "stage" + std::to_string(s));
        for (int k = 0; k < blocks; ++k) {
            ScopeGuard block(b, "block" + std::to_string(k));
            std::vector<std::string> recent{x};
            for (int i = 0; i < ops; ++i) {
                const std::string name = "op" + std::to_string(i);
                if (i % 4 == 3 && recent.size() >= 4)
                    x = b.binary("Add", x, recent[recent.size() - 4], name);
                else
                    x = b.unary(i % 2 ? "Tanh" : "Relu", x, name);
                recent.push_back(x);
            }
        }
    }
    b.output(x);
    auto model = b.finish();
    if (!model) {
        std::fprintf(stderr, "bench_stalls: %s\n", model.status().str().c_str());
        return false;
    }
    return saveModel(**model, path.toStdString(), false).isOk();
}

} // namespace tessera::test
