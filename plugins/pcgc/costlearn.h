// Building PCGC's learned cost model (pcgc §3.5, Algorithm 1: multi-level
// rule guided cost model construction).
//
// P, the list of ops (collectOps): every graph is fused statically
// (staticfusion.h); P holds each fused group, each side of each fusion
// record and the rest of its group (the parts Algorithm 2 evaluates), and
// every single node — distinct by features (an op with the same features
// costs the same), in graph order.
//
// Algorithm 1, as built here (our reading where the paper is terse):
//   line 1  the "pre-trained model" is the analytic DeviceCostModel: its time
//           and power for the op are features, and the regressors learn the
//           log ratio measured / analytic (learnedcost.h);
//   line 2  P is shuffled (seeded); first a held-back share (heldBackFraction,
//           default 20 %) is measured for the accuracy report only and never
//           trained on; then T = the next labelFraction (10 %) of P;
//   line 5  getGroundTruth(T): each op of T is extracted as a graph of its own
//           and run as one kernel on the measuring backend (the simulator:
//           sim_time_ms and energy_j; a measuring backend where present);
//   lines 4–9 the semi-supervised loop, per target (time, power): train on the
//           labelled ops, predict the unlabelled ones with a bag of
//           `bagMembers` models on row and feature subsamples, and add the
//           stepFraction of P whose predictions the bag agrees on most
//           (smallest spread: "high confidence data") with the bag's mean as
//           their label; retrain; stop once |Labeled| / |P| ≥ AC;
//   then    the final model is trained on every label and scored on the
//           held-back ops (MAPE, R² of log values, and the analytic model's
//           MAPE on the same ops for comparison).
// Refused, with a Status that says so: too few measured labels (fewer than
// minLabels after line 5: "too few labels"), no regressor library
// (regressor.h), a backend that reports no time. A device without a power
// model trains the time model only (learnedcost.h).
#pragma once

#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "plugins/pcgc/learnedcost.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::pcgc {

struct OpSample {
    const Graph *graph = nullptr;
    std::vector<NodeId> nodes;
    AnalyticEstimate analytic;
    std::vector<float> features;
};

// P: the distinct (fused) ops of `graphs` on `device`.
std::vector<OpSample> collectOps(const std::vector<const Graph *> &graphs, const Device &device);

struct Measurement {
    double timeNs = 0;
    double energyJ = 0;
};

// getGroundTruth for one op: `nodes` as a graph of their own, one kernel,
// compiled and run on `backend` for `device`.
Expected<Measurement> measureOp(const Graph &g, const std::vector<NodeId> &nodes, const Device &device,
                                IBackend &backend);

struct TrainOptions {
    double labelFraction = 0.10;    // Algorithm 1 line 2: the share of P measured
    double heldBackFraction = 0.20; // measured for the accuracy report only
    double ac = 0.60;               // AC: labelled share (measured + pseudo) that ends training
    double stepFraction = 0.10;     // share of P pseudo-labelled per round
    std::int32_t minLabels = 24;    // fewer measured labels: refused
    std::int32_t bagMembers = 3;    // models whose spread is the confidence
    std::uint64_t seed = 17;
    RegressorParams params;
    std::function<void(double)> progress; // 0..1
    // Checked before every measurement and between the models: when it is
    // set, training stops with a Cancelled Status (nothing is returned).
    const std::atomic<bool> *cancel = nullptr;
};

// Algorithm 1 for `device` over the ops of `graphs`, measured on `backend`.
Expected<std::unique_ptr<LearnedCostModel>> trainCostModel(const std::vector<const Graph *> &graphs,
                                                           const Device &device, IBackend &backend,
                                                           const TrainOptions &options = {});

} // namespace tessera::pcgc
