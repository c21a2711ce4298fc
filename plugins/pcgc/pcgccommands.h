// tessera-cli pcgc-train: (re)trains PCGC's learned cost model (pcgc §3.5,
// Algorithm 1; costlearn.h) for one device and reports its accuracy.
//
//   pcgc-train --device PRESET [--backend sim] [--models A,B,...] [--out FILE]
//              [--seed N] [--ac X] [--image-size N] [--batch N] [--seq-len N]
//     MODELS are sample names (tessera-cli sample --list) or model files; the
//     default is resnet50,mobilenetv2,densenet121,bert (--image-size applies to
//     the image networks only). The ops of their static
//     fusion are measured on the backend (a timing or measuring backend; the
//     simulator by default), the time and power models trained, scored on the
//     held-back ops and saved to FILE (default: the user's data folder,
//     tessera/pcgc/<device>.json), where `schedule --algo pcgc --option
//     cost_model=learned` finds them. Prints the accuracy (MAPE and R² of the
//     held-back ops, beside the analytic model's MAPE) and where it saved.
//   Exit codes: 2 usage, 3 too few labels / bad models, 4 no XGBoost or the
//   backend is unavailable.
//
// The training set's loading is shared with bench/bench_pcgc.cpp, which
// trains the same way: the default set, name lists and samples imported from
// their bytes.
#pragma once

#include "core/onnx/importer.h"
#include "core/plugin/command.h"
#include "core/plugin/samples.h"

#include <string>
#include <vector>

namespace tessera {
class Extensions;
}

namespace tessera::pcgc {

cli::Command trainCommand();

// pcgc-train's default training set (--models).
inline constexpr const char *kDefaultTrainingModels = "resnet50,mobilenetv2,densenet121,bert";

// The items of a comma-separated list, empty ones dropped.
std::vector<std::string> splitList(const std::string &list);

// The sample `name` built by `extensions` with `options` and imported from its
// bytes (as "<name>.onnx"); a network that refuses options.imageSize (one
// without an image input) is built with its default instead.
Expected<ImportResult> importSample(const Extensions &extensions, const std::string &name, SampleOptions options);

} // namespace tessera::pcgc
