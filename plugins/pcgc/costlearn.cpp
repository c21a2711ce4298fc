#include "plugins/pcgc/costlearn.h"

#include "core/backend/inputs.h"
#include "core/ir/analysis.h"
#include "core/sched/planbuilder.h"
#include "plugins/pcgc/staticfusion.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace tessera::pcgc {

namespace {

std::string featureKey(const std::vector<float> &row)
{
    std::string key(row.size() * sizeof(float), '\0');
    std::memcpy(key.data(), row.data(), key.size());
    return key;
}

// Fisher–Yates with a fixed generator: the same order on every platform.
void shuffle(std::vector<std::size_t> &v, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[static_cast<std::size_t>(rng() % i)]);
}

double mean(const std::vector<double> &v)
{
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// Semi-supervised training of one target (Algorithm 1 lines 4–9).
struct SelfTraining {
    Regressor model;
    std::int32_t pseudo = 0;
    std::int32_t rounds = 0;
};

Expected<SelfTraining> selfTrain(const std::vector<std::vector<float>> &x, std::vector<std::size_t> labelled,
                                 std::vector<float> y, std::vector<std::size_t> unlabelled, std::size_t pool,
                                 const TrainOptions &o)
{
    SelfTraining out;
    const auto step = std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(o.stepFraction * double(pool))));
    while (double(labelled.size()) / double(pool) < o.ac && !unlabelled.empty()) { // line 4
        std::vector<std::vector<float>> lx, ux;
        for (std::size_t i : labelled)
            lx.push_back(x[i]);
        for (std::size_t i : unlabelled)
            ux.push_back(x[i]);
        std::vector<std::vector<float>> predictions;
        for (std::int32_t m = 0; m < o.bagMembers; ++m) { // line 7 (train), line 8 (eval)
            RegressorParams p = o.params;
            p.subsample = 0.8;
            p.colsample = 0.8;
            p.rounds = std::max(20, p.rounds / 2);
            p.seed = o.seed + 101 * static_cast<std::uint64_t>(m + 1) + static_cast<std::uint64_t>(out.rounds);
            auto r = Regressor::train(lx, y, p);
            if (!r)
                return r.status();
            auto pred = r->predict(ux);
            if (!pred)
                return pred.status();
            predictions.push_back(std::move(*pred));
        }
        std::vector<double> avg(unlabelled.size()), spread(unlabelled.size());
        for (std::size_t j = 0; j < unlabelled.size(); ++j) {
            double s = 0, s2 = 0;
            for (const auto &p : predictions) {
                s += p[j];
                s2 += double(p[j]) * p[j];
            }
            const double n = double(predictions.size());
            avg[j] = s / n;
            spread[j] = std::sqrt(std::max(0.0, s2 / n - avg[j] * avg[j]));
        }
        std::vector<std::size_t> order(unlabelled.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return spread[a] < spread[b]; });
        order.resize(std::min(step, order.size())); // line 9: the most confident
        std::set<std::size_t> taken(order.begin(), order.end());
        std::vector<std::size_t> rest;
        for (std::size_t j = 0; j < unlabelled.size(); ++j) {
            if (taken.count(j)) {
                labelled.push_back(unlabelled[j]); // line 6, with the bag's mean as the label
                y.push_back(static_cast<float>(avg[j]));
                ++out.pseudo;
            } else {
                rest.push_back(unlabelled[j]);
            }
        }
        unlabelled = std::move(rest);
        ++out.rounds;
    }
    std::vector<std::vector<float>> lx;
    for (std::size_t i : labelled)
        lx.push_back(x[i]);
    auto r = Regressor::train(lx, y, o.params);
    if (!r)
        return r.status();
    out.model = std::move(*r);
    return out;
}

// Scores `model` on the held-back ops: predicted = analytic × e^prediction.
Expected<TargetModel> score(Regressor model, const std::vector<std::vector<float>> &x,
                            const std::vector<double> &measured, const std::vector<double> &analytic)
{
    auto pred = model.predict(x);
    if (!pred)
        return pred.status();
    TargetModel t;
    t.regressor = std::move(model);
    std::vector<double> ape, apeAnalytic, logMeasured;
    double sse = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double p = analytic[i] * std::exp(double((*pred)[i]));
        t.heldBack.push_back({measured[i], p, analytic[i]});
        if (measured[i] > 0) {
            ape.push_back(std::abs(p - measured[i]) / measured[i]);
            apeAnalytic.push_back(std::abs(analytic[i] - measured[i]) / measured[i]);
            logMeasured.push_back(std::log(measured[i]));
            sse += std::pow(std::log(std::max(p, 1e-30)) - std::log(measured[i]), 2);
        }
    }
    const double m = mean(logMeasured);
    double sst = 0;
    for (double v : logMeasured)
        sst += (v - m) * (v - m);
    t.accuracy.count = static_cast<std::int32_t>(ape.size());
    t.accuracy.mape = mean(ape);
    t.accuracy.analyticMape = mean(apeAnalytic);
    t.accuracy.r2 = sst > 0 ? 1 - sse / sst : 0;
    return t;
}

} // namespace

std::vector<OpSample> collectOps(const std::vector<const Graph *> &graphs, const Device &device)
{
    const DeviceCostModel analytic(device);
    std::vector<OpSample> ops;
    std::unordered_set<std::string> seen;
    for (const Graph *g : graphs) {
        if (!topologicalOrder(*g))
            continue;
        DecisionContext decisions;
        Trace trace;
        const Partition partition = staticFusion(*g, device, decisions, trace);
        std::vector<std::vector<NodeId>> candidates;
        for (const FusedGroup &grp : partition.groups) {
            candidates.push_back(grp.nodes);
            const std::unordered_set<NodeId> inside(grp.nodes.begin(), grp.nodes.end());
            for (const FusionRecord &r : partition.records) {
                if (!inside.count(r.producerSide.front()))
                    continue;
                candidates.push_back(r.producerSide);
                candidates.push_back(r.consumerSide);
                const std::unordered_set<NodeId> a(r.producerSide.begin(), r.producerSide.end());
                std::vector<NodeId> rest;
                for (NodeId n : grp.nodes)
                    if (!a.count(n))
                        rest.push_back(n);
                candidates.push_back(std::move(rest));
            }
            for (NodeId n : grp.nodes)
                candidates.push_back({n});
        }
        for (auto &nodes : candidates) {
            if (nodes.empty())
                continue;
            std::sort(nodes.begin(), nodes.end());
            const AnalyticEstimate a = analyticEstimate(analytic, *g, nodes, device.totalCores());
            if (!(a.timeNs > 0))
                continue; // free ops (reshapes): nothing to learn
            std::vector<float> row = groupFeatures(*g, nodes, a);
            if (!seen.insert(featureKey(row)).second)
                continue;
            ops.push_back({g, std::move(nodes), a, std::move(row)});
        }
    }
    return ops;
}

Expected<Measurement> measureOp(const Graph &g, const std::vector<NodeId> &nodes, const Device &device,
                                IBackend &backend)
{
    auto order = topologicalOrder(g);
    if (!order)
        return order.status();
    const std::vector<std::int32_t> rank = topologicalRanks(*order);
    std::vector<NodeId> sorted = nodes;
    std::sort(sorted.begin(), sorted.end(), [&](NodeId a, NodeId b) {
        return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)];
    });
    const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
    std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());

    Graph sub;
    sub.name = g.name + "/" + g.node(sorted.front()).name;
    sub.opsetVersion = g.opsetVersion;
    std::unordered_map<TensorId, TensorId> map;
    auto copy = [&](TensorId id, Tensor::Kind kind) {
        Tensor t = g.tensor(id);
        t.producer = kInvalidId;
        t.consumers.clear();
        t.kind = kind;
        const TensorId c = sub.addTensor(std::move(t));
        map.emplace(id, c);
        return c;
    };
    std::vector<TensorId> escaping;
    for (NodeId n : sorted) {
        Node node = g.node(n);
        for (TensorId &t : node.inputs) {
            if (t == kInvalidId)
                continue;
            auto it = map.find(t);
            if (it != map.end()) {
                t = it->second;
                continue;
            }
            const Tensor &src = g.tensor(t);
            const bool constant = src.isConstant();
            const TensorId c = copy(t, constant ? Tensor::Kind::Initializer : Tensor::Kind::Input);
            if (!constant)
                sub.inputs.push_back(c);
            t = c;
        }
        for (TensorId &t : node.outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &src = g.tensor(t);
            const bool escapes =
                graphOutputs.count(t) || src.consumers.empty() ||
                std::any_of(src.consumers.begin(), src.consumers.end(), [&](NodeId c) { return !inside.count(c); });
            const TensorId c = copy(t, Tensor::Kind::Intermediate);
            if (escapes)
                escaping.push_back(c);
            t = c;
        }
        sub.addNode(std::move(node));
    }
    sub.outputs = escaping;
    if (auto st = sub.verify(); !st.isOk())
        return st;

    const DeviceCostModel cost(device);
    PlanBuilder builder(sub, cost);
    std::vector<NodeId> all(sub.nodeCount());
    std::iota(all.begin(), all.end(), 0);
    builder.addKernel("op", all);
    ExecutionPlan plan = builder.finish();
    plan.device = device.id;
    CompileContext context;
    context.device = &device;
    auto compiled = backend.compileFor(sub, plan, context);
    if (!compiled)
        return compiled.status();
    auto run = backend.run(**compiled, syntheticInputs(sub));
    if (!run)
        return run.status();
    Measurement m;
    auto time = run->metrics.find("sim_time_ms");
    m.timeNs = time != run->metrics.end() ? time->second * 1e6 : run->latencyMs * 1e6;
    auto energy = run->metrics.find("energy_j");
    m.energyJ = energy != run->metrics.end() ? energy->second : 0;
    if (!(m.timeNs > 0))
        return Status::error(ErrorCode::Unsupported,
                             "the '" + backend.info().name + "' backend reported no time for " + sub.name);
    if (!backend.info().capabilities.measured) {
        // A simulated plan issues its first task at t = 0; in a network every
        // kernel waits for its launch, so the launch (and the static power over it) is added.
        m.timeNs += device.overheads.kernelLaunchNs;
        m.energyJ += device.power.staticWatts * device.overheads.kernelLaunchNs * 1e-9;
    }
    return m;
}

Expected<std::unique_ptr<LearnedCostModel>>
trainCostModel(const std::vector<const Graph *> &graphs, const Device &device, IBackend &backend, const TrainOptions &o)
{
    const auto start = std::chrono::steady_clock::now();
    if (!Regressor::available())
        return Status::error(ErrorCode::Unavailable, Regressor::unavailableReason());
    if (!backend.info().capabilities.timing && !backend.info().capabilities.measured)
        return Status::error(ErrorCode::Usage, "the '" + backend.info().name +
                                                   "' backend neither measures nor simulates time; "
                                                   "train on 'sim' or a measuring backend");
    const std::vector<OpSample> ops = collectOps(graphs, device);
    const bool power = hasPowerModel(device);

    // Line 2: shuffle; held-back share, then T.
    std::vector<std::size_t> order(ops.size());
    std::iota(order.begin(), order.end(), 0);
    shuffle(order, o.seed);
    const auto heldCount = static_cast<std::size_t>(std::lround(o.heldBackFraction * double(ops.size())));
    const std::size_t pool = ops.size() - heldCount;
    const auto labelCount = static_cast<std::size_t>(std::lround(o.labelFraction * double(pool)));
    if (static_cast<std::int32_t>(labelCount) < o.minLabels)
        return Status::invalid("too few labels to train the PCGC cost model: " + std::to_string(ops.size()) +
                               " distinct ops give " + std::to_string(labelCount) + " measured labels (" +
                               std::to_string(int(o.labelFraction * 100)) + " %), at least " +
                               std::to_string(o.minLabels) +
                               " are needed; train on more or larger models. PCGC keeps the analytic DeviceCostModel");

    TrainingSummary summary;
    summary.backend = backend.info().name;
    for (const Graph *g : graphs)
        summary.graphs.push_back(g->name);
    summary.ops = static_cast<std::int32_t>(ops.size());
    summary.ac = o.ac;

    // Line 5: ground truth for the held-back ops and for T.
    std::vector<std::vector<float>> heldX;
    std::vector<double> heldTime, heldTimeAnalytic, heldPower, heldPowerAnalytic;
    std::vector<std::size_t> labelled, unlabelled;
    std::vector<float> yTime, yPower;
    const std::size_t toMeasure = heldCount + labelCount;
    std::size_t measuredSoFar = 0;
    bool anyEnergy = false; // the backend reports energy (a timing-only backend does not)
    for (std::size_t k = 0; k < order.size(); ++k) {
        const OpSample &op = ops[order[k]];
        const bool held = k < heldCount;
        if (!held && k >= heldCount + labelCount) {
            unlabelled.push_back(order[k]);
            continue;
        }
        if (o.cancel && o.cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "training cancelled after " + std::to_string(measuredSoFar) +
                                                           " of " + std::to_string(toMeasure) + " measurements");
        auto m = measureOp(*op.graph, op.nodes, device, backend);
        if (o.progress)
            o.progress(0.8 * double(++measuredSoFar) / double(toMeasure));
        if (!m) {
            ++summary.skipped;
            continue;
        }
        const double measuredPower = m->energyJ / (m->timeNs * 1e-9);
        anyEnergy = anyEnergy || m->energyJ > 0;
        if (held) {
            heldX.push_back(op.features);
            heldTime.push_back(m->timeNs);
            heldTimeAnalytic.push_back(op.analytic.timeNs);
            heldPower.push_back(measuredPower);
            heldPowerAnalytic.push_back(op.analytic.powerW());
            continue;
        }
        labelled.push_back(order[k]);
        yTime.push_back(static_cast<float>(std::log(m->timeNs / op.analytic.timeNs)));
        yPower.push_back(
            static_cast<float>(std::log(std::max(measuredPower, 1e-12) / std::max(op.analytic.powerW(), 1e-12))));
    }
    summary.measured = static_cast<std::int32_t>(labelled.size());
    summary.heldBack = static_cast<std::int32_t>(heldX.size());
    if (static_cast<std::int32_t>(labelled.size()) < o.minLabels)
        return Status::invalid("too few labels to train the PCGC cost model: " + std::to_string(labelled.size()) +
                               " ops measured on '" + backend.info().name + "' (" + std::to_string(summary.skipped) +
                               " could not be), at least " + std::to_string(o.minLabels) +
                               " are needed. PCGC keeps the analytic DeviceCostModel");
    if (heldX.empty())
        return Status::invalid("no held-back op could be measured, so the model's accuracy is unknown");

    std::vector<std::vector<float>> x;
    for (const OpSample &op : ops)
        x.push_back(op.features);
    auto cancelled = [&]() { return o.cancel && o.cancel->load(std::memory_order_relaxed); };
    if (cancelled())
        return Status::error(ErrorCode::Cancelled, "training cancelled after the measurements");
    auto time = selfTrain(x, labelled, yTime, unlabelled, pool, o);
    if (!time)
        return time.status();
    summary.pseudoLabelled = time->pseudo;
    summary.rounds = time->rounds;
    if (o.progress)
        o.progress(0.9);
    auto timeModel = score(std::move(time->model), heldX, heldTime, heldTimeAnalytic);
    if (!timeModel)
        return timeModel.status();

    std::optional<TargetModel> powerModel;
    std::string powerNote;
    if (power && !anyEnergy) {
        powerNote = "the '" + backend.info().name +
                    "' backend reports no energy: only the time model is trained; energy is the analytic "
                    "DeviceCostModel's";
    } else if (power) {
        if (cancelled())
            return Status::error(ErrorCode::Cancelled, "training cancelled after the time model");
        auto p = selfTrain(x, labelled, yPower, unlabelled, pool, o);
        if (!p)
            return p.status();
        auto scored = score(std::move(p->model), heldX, heldPower, heldPowerAnalytic);
        if (!scored)
            return scored.status();
        powerModel = std::move(*scored);
    } else {
        powerNote = "device '" + device.id +
                    "' has no power model (power.staticWatts, units[].energyPerOpPj and levels[].energyPerBytePj "
                    "are all unknown): only the time model is trained; energy is the analytic DeviceCostModel's";
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    summary.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    if (o.progress)
        o.progress(1.0);
    return std::make_unique<LearnedCostModel>(device, std::move(*timeModel), std::move(powerModel), std::move(summary),
                                              std::move(powerNote));
}

} // namespace tessera::pcgc
