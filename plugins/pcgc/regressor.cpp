#include "plugins/pcgc/regressor.h"

#ifdef TESSERA_HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

#include <cmath>
#include <cstdio>
#include <mutex>

namespace tessera::pcgc {

#ifdef TESSERA_HAVE_XGBOOST

namespace {

Status xgbError(const std::string &what)
{
    return Status::error(ErrorCode::Internal, "XGBoost: " + what + ": " + XGBGetLastError());
}

void quietOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { XGBSetGlobalConfig(R"({"verbosity": 0})"); });
}

// A row-major DMatrix of `x` (freed by the caller).
Expected<DMatrixHandle> matrix(const std::vector<std::vector<float>> &x, int width)
{
    std::vector<float> flat;
    flat.reserve(x.size() * static_cast<std::size_t>(width));
    for (const auto &row : x) {
        if (static_cast<int>(row.size()) != width)
            return Status::error(ErrorCode::Usage, "feature rows of different widths");
        flat.insert(flat.end(), row.begin(), row.end());
    }
    DMatrixHandle m = nullptr;
    if (XGDMatrixCreateFromMat(flat.data(), x.size(), static_cast<bst_ulong>(width), NAN, &m) != 0)
        return xgbError("creating a matrix");
    return m;
}

} // namespace

struct Regressor::Impl {
    BoosterHandle booster = nullptr;
    int features = 0;
    ~Impl()
    {
        if (booster)
            XGBoosterFree(booster);
    }
};

bool Regressor::available()
{
    return true;
}

std::string Regressor::unavailableReason()
{
    return {};
}

Expected<Regressor> Regressor::train(const std::vector<std::vector<float>> &x, const std::vector<float> &y,
                                     const RegressorParams &params)
{
    quietOnce();
    if (x.empty() || x.size() != y.size())
        return Status::error(ErrorCode::Usage, "training needs as many labels as rows, and at least one");
    const int width = static_cast<int>(x.front().size());
    auto m = matrix(x, width);
    if (!m)
        return m.status();
    DMatrixHandle dtrain = *m;
    struct Free {
        DMatrixHandle h;
        ~Free() { XGDMatrixFree(h); }
    } freeMatrix{dtrain};
    if (XGDMatrixSetFloatInfo(dtrain, "label", y.data(), y.size()) != 0)
        return xgbError("setting labels");
    Regressor r;
    r.m_impl = std::make_unique<Impl>();
    r.m_impl->features = width;
    if (XGBoosterCreate(&dtrain, 1, &r.m_impl->booster) != 0)
        return xgbError("creating a booster");
    auto set = [&](const char *k, const std::string &v) { return XGBoosterSetParam(r.m_impl->booster, k, v.c_str()); };
    char buf[64];
    const auto num = [&](double v) {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    };
    if (set("objective", "reg:squarederror") || set("tree_method", "exact") || set("nthread", "1") ||
        set("max_depth", std::to_string(params.maxDepth)) || set("eta", num(params.eta)) ||
        set("subsample", num(params.subsample)) || set("colsample_bytree", num(params.colsample)) ||
        set("seed", std::to_string(params.seed)) || set("verbosity", "0"))
        return xgbError("setting parameters");
    for (int i = 0; i < params.rounds; ++i)
        if (XGBoosterUpdateOneIter(r.m_impl->booster, i, dtrain) != 0)
            return xgbError("boosting round " + std::to_string(i));
    return r;
}

Expected<std::string> Regressor::save() const
{
    if (!m_impl)
        return Status::error(ErrorCode::Usage, "no model to save");
    bst_ulong len = 0;
    const char *data = nullptr;
    if (XGBoosterSaveModelToBuffer(m_impl->booster, R"({"format": "json"})", &len, &data) != 0)
        return xgbError("saving a model");
    return std::string(data, len);
}

Expected<Regressor> Regressor::load(std::string_view bytes, int features)
{
    quietOnce();
    // XGBoost reads JSON (and its binary formats) from a buffer; a JSON
    // model is what save() writes, so anything else is refused up front.
    if (bytes.empty() || bytes.front() != '{')
        return Status::invalid("the regression model is not an XGBoost JSON model");
    Regressor r;
    r.m_impl = std::make_unique<Impl>();
    if (XGBoosterCreate(nullptr, 0, &r.m_impl->booster) != 0)
        return xgbError("creating a booster");
    if (XGBoosterLoadModelFromBuffer(r.m_impl->booster, bytes.data(), bytes.size()) != 0)
        return Status::invalid(std::string("the regression model does not load: ") + XGBGetLastError());
    bst_ulong n = 0;
    if (XGBoosterGetNumFeature(r.m_impl->booster, &n) != 0)
        return xgbError("reading the feature count");
    if (static_cast<int>(n) != features)
        return Status::invalid("the regression model has " + std::to_string(n) + " features, not " +
                               std::to_string(features));
    XGBoosterSetParam(r.m_impl->booster, "nthread", "1");
    r.m_impl->features = features;
    return r;
}

int Regressor::features() const
{
    return m_impl ? m_impl->features : 0;
}

Expected<std::vector<float>> Regressor::predict(const std::vector<std::vector<float>> &x) const
{
    if (!m_impl)
        return Status::error(ErrorCode::Usage, "no model to predict with");
    if (x.empty())
        return std::vector<float>{};
    auto m = matrix(x, m_impl->features);
    if (!m)
        return m.status();
    struct Free {
        DMatrixHandle h;
        ~Free() { XGDMatrixFree(h); }
    } freeMatrix{*m};
    bst_ulong len = 0;
    const float *out = nullptr;
    if (XGBoosterPredict(m_impl->booster, *m, 0, 0, 0, &len, &out) != 0)
        return xgbError("predicting");
    if (len != x.size())
        return Status::error(ErrorCode::Internal, "XGBoost returned " + std::to_string(len) + " predictions for " +
                                                      std::to_string(x.size()) + " rows");
    return std::vector<float>(out, out + len);
}

#else // no XGBoost: every use is refused with the reason.

struct Regressor::Impl {
    int features = 0;
};

bool Regressor::available()
{
    return false;
}

std::string Regressor::unavailableReason()
{
    return "Tessera was built without XGBoost (libxgboost-dev was not found when plugins/pcgc was configured); "
           "the learned cost model is unavailable and PCGC uses the analytic DeviceCostModel";
}

Expected<Regressor> Regressor::train(const std::vector<std::vector<float>> &, const std::vector<float> &,
                                     const RegressorParams &)
{
    return Status::error(ErrorCode::Unavailable, unavailableReason());
}

Expected<std::string> Regressor::save() const
{
    return Status::error(ErrorCode::Unavailable, unavailableReason());
}

Expected<Regressor> Regressor::load(std::string_view, int)
{
    return Status::error(ErrorCode::Unavailable, unavailableReason());
}

int Regressor::features() const
{
    return 0;
}

Expected<std::vector<float>> Regressor::predict(const std::vector<std::vector<float>> &) const
{
    return Status::error(ErrorCode::Unavailable, unavailableReason());
}

#endif

Regressor::Regressor() = default;
Regressor::~Regressor() = default;
Regressor::Regressor(Regressor &&) noexcept = default;
Regressor &Regressor::operator=(Regressor &&) noexcept = default;

} // namespace tessera::pcgc
