// The learned cost model of PCGC (pcgc §3.5): two regression models per
// device, one for time and one for power, used by the re-cutting
// (recut.h) in place of the analytic model when the user asks for it.
//
// Prediction. Both models correct the analytic DeviceCostModel (the
// "pre-trained model" Algorithm 1 line 1 loads; features.h): the time model
// predicts log(measured time / analytic time), the power model
// log(measured average power / analytic average power), from the group's
// features. A kernel's time is the analytic time × e^prediction, its energy
// the predicted power × the predicted time. Everything else (launches,
// stages, transfers) is the analytic model's: the learned model only re-costs
// a kernel alone, which is all Algorithm 2 compares.
//
// Persistence. One JSON file per device (defaultModelPath: the user's data
// folder, <GenericDataLocation>/tessera/pcgc/<device>.json), holding the
// format tag and version, the device id and a fingerprint of the device's
// parameters, the feature names, each regressor (XGBoost JSON, base64), its
// accuracy on the held-back labels and those points (measured, predicted,
// analytic) for the dock's scatter, and the training summary. load() refuses,
// with an InvalidInput Status naming the file and the reason, anything else:
// not JSON, another format or version, another device, a device whose
// parameters changed since training, other features, a regressor that does
// not load. The documented fallback (pcgc.h) is then the analytic model.
//
// A device without a power model (no static power, no pJ/op, no pJ/byte:
// hasPowerModel) gets a time model only; its energy is the analytic model's
// (zero) and powerNote() says so.
#pragma once

#include "core/cost/devicecost.h"
#include "plugins/pcgc/features.h"
#include "plugins/pcgc/regressor.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::pcgc {

// Accuracy of a model on labels it never saw (held back before training).
struct Accuracy {
    std::int32_t count = 0;
    double mape = 0;         // mean |predicted − measured| / measured
    double r2 = 0;           // 1 − SSE/SST of log(measured) (orders of magnitude)
    double analyticMape = 0; // the analytic model's MAPE on the same labels
};

struct ScatterPoint {
    double measured = 0, predicted = 0, analytic = 0;
};

struct TargetModel {
    Regressor regressor;
    Accuracy accuracy;
    std::vector<ScatterPoint> heldBack;
};

struct TrainingSummary {
    std::string backend;             // the backend that measured ("sim")
    std::vector<std::string> graphs; // graph names the ops came from
    std::int32_t ops = 0;            // |P|: distinct (fused) ops
    std::int32_t measured = 0;       // measured for training (Algorithm 1 line 5)
    std::int32_t heldBack = 0;       // measured for the accuracy only
    std::int32_t pseudoLabelled = 0; // high-confidence predictions added as labels
    std::int32_t rounds = 0;         // retraining rounds
    std::int32_t skipped = 0;        // ops the backend could not measure
    double ac = 0;                   // AC: the labelled share training stops at
    double seconds = 0;              // wall-clock training time
    std::string created;             // ISO date-time (UTC)
};

// Whether the device has any power figure (static power, pJ/op or pJ/byte).
bool hasPowerModel(const Device &device);
// A hash of the device's parameters (its JSON form): a model trained for
// another version of the device is refused.
std::string deviceFingerprint(const Device &device);
// <GenericDataLocation>/tessera/pcgc/<device id>.json
std::string defaultModelPath(const std::string &deviceId);

class LearnedCostModel final : public CostModel
{
public:
    // `device` must outlive the model.
    LearnedCostModel(const Device &device, TargetModel time, std::optional<TargetModel> power, TrainingSummary summary,
                     std::string powerNote);

    std::string name() const override { return "pcgc-learned:" + m_device.id; }
    KernelEstimate estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                  const KernelPlacement &p) const override;
    KernelEstimate estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const override
    {
        return m_analytic.estimateShapedKernel(launches);
    }
    StageEstimate estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const override
    {
        return m_analytic.estimateStage(streams);
    }
    double stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const override
    {
        return m_analytic.stageSpanNs(streams);
    }
    TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const override
    {
        return m_analytic.transferCost(bytes, fromLevel, toLevel);
    }
    double syncNs() const override { return m_analytic.syncNs(); }

    // Time and energy of `nodes` as one kernel alone, predicted.
    Expected<AnalyticEstimate> predict(const Graph &g, const std::vector<NodeId> &nodes) const;

    const Device &device() const { return m_device; }
    const TargetModel &time() const { return m_time; }
    const TargetModel *power() const { return m_power ? &*m_power : nullptr; }
    const TrainingSummary &summary() const { return m_summary; }
    const std::string &powerNote() const { return m_powerNote; }

    Status save(const std::string &path) const;
    static Expected<std::unique_ptr<LearnedCostModel>> load(const std::string &path, const Device &device);
    // The saved form as text, and back (`source` names where it came from in
    // a refusal); load() and save() are these plus the file.
    Expected<std::string> toJson() const;
    static Expected<std::unique_ptr<LearnedCostModel>> fromJson(std::string_view json, const Device &device,
                                                                const std::string &source);

private:
    const Device &m_device;
    DeviceCostModel m_analytic;
    TargetModel m_time;
    std::optional<TargetModel> m_power;
    TrainingSummary m_summary;
    std::string m_powerNote;
};

// What a saved model says about itself (accuracy, held-back points, how it
// was trained), read without the regressor library or the device: the dock's
// scatter. Refuses files that are not a PCGC cost model like load() does.
struct ModelReport {
    std::string device;
    Accuracy time;
    std::optional<Accuracy> power;
    std::vector<ScatterPoint> timePoints, powerPoints;
    TrainingSummary summary;
    std::string powerNote;
};
Expected<ModelReport> readModelReport(const std::string &path);

// The analytic estimate of `nodes` as one kernel alone (`deviceCores`: the device's cores).
AnalyticEstimate analyticEstimate(const CostModel &cost, const Graph &g, const std::vector<NodeId> &nodes,
                                  int deviceCores);

} // namespace tessera::pcgc
