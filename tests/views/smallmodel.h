// The workbench tests' model: a residual network small enough to load in
// milliseconds, with name scopes so the hierarchy has groups (stem, block0,
// block1, head). `width` changes its structure (a "model changed" case).
#pragma once

#include "samples/builder.h"

#include <QString>

#include <gtest/gtest.h>
#include <string>

namespace tessera::testmodels {

inline void writeSmallModel(const QString &path, int width = 16)
{
    samples::ModelBuilder b("small_resnet", 7);
    std::string y = b.input("x", {1, 3, 32, 32});
    {
        samples::ScopeGuard s(b, "stem");
        y = b.maxPool(b.relu(b.conv(y, "conv", width, 3), "relu"), "pool", 3, 2, 1);
    }
    for (int i = 0; i < 2; ++i) {
        samples::ScopeGuard s(b, "block" + std::to_string(i));
        std::string c = b.relu(b.conv(y, "conv1", width, 3), "relu1");
        c = b.conv(c, "conv2", width, 3);
        y = b.relu(b.binary("Add", c, y, "add"), "relu2");
    }
    {
        samples::ScopeGuard s(b, "head");
        y = b.gemm(b.flatten(b.globalAvgPool(y, "pool"), "flatten"), "fc", 10);
    }
    b.output(y);
    auto model = b.finish();
    ASSERT_TRUE(model.isOk()) << model.status().str();
    ASSERT_TRUE(samples::saveModel(**model, path.toStdString(), false).isOk());
}

} // namespace tessera::testmodels
