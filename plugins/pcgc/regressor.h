// A gradient-boosted regression-tree model (pcgc §3.5: the regressor of the
// learned cost model), behind one file so nothing else sees XGBoost's headers.
//
// Built with XGBoost's C API (Debian libxgboost-dev; plugins/pcgc/CMakeLists.txt
// finds it and defines TESSERA_HAVE_XGBOOST for regressor.cpp only). Without
// the library every function returns an Unavailable Status naming it, and
// available() is false: the plugin then uses the analytic DeviceCostModel.
// Deterministic: one thread, the exact tree method, a fixed seed; the same
// rows and parameters give the same trees and predictions.
#pragma once

#include "core/support/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::pcgc {

struct RegressorParams {
    int rounds = 150;       // boosting rounds (trees)
    int maxDepth = 5;       // depth of each tree
    double eta = 0.15;      // learning rate
    double subsample = 1.0; // row fraction per tree (< 1 for the bagged confidence members)
    double colsample = 1.0; // feature fraction per tree
    std::uint64_t seed = 1; // XGBoost's random seed (subsampling)
};

class Regressor
{
public:
    Regressor();
    ~Regressor();
    Regressor(Regressor &&) noexcept;
    Regressor &operator=(Regressor &&) noexcept;

    // Whether the regressor can be used (built with XGBoost), and why not.
    static bool available();
    static std::string unavailableReason();

    // Squared-error regression of y on the rows x (all of one width).
    static Expected<Regressor> train(const std::vector<std::vector<float>> &x, const std::vector<float> &y,
                                     const RegressorParams &params);
    // The model's serialised form (XGBoost JSON), and back; load() refuses bytes
    // that are no model and a model for another number of features.
    Expected<std::string> save() const;
    static Expected<Regressor> load(std::string_view bytes, int features);

    bool valid() const { return m_impl != nullptr; }
    int features() const;
    Expected<std::vector<float>> predict(const std::vector<std::vector<float>> &x) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tessera::pcgc
