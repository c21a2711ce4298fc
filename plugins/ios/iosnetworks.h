// The IOS benchmark networks, and any IOS graph config, as ONNX models.
//
// IOS (ios-inter-operator-scheduler §3.1, §4.1 Table 4.1) schedules "units": a
// convolution with its activation, a pooling, a ReLU, an identity that only
// gathers its inputs, or a Sequential (a compound unit such as RandWire's and
// NasNet's ReLU → separable conv, run as one). A unit's input is a list of
// terms: the values of one term are summed (multiplied for an Element 'mul'),
// the terms are concatenated along channels, and a value may be a channel
// slice name[b:e]. A graph is a chain of blocks; a block reads only its enter
// node (the previous block's exit) and its own units, its last unit is its exit.
//
// buildFromIosConfig() converts the JSON written by IOS's
// Graph.export_config() into ONNX, one unit at a time and in config order:
//   Slice        for a value that is a channel slice,
//   Add / Sum    for a term of 2 / more values (Mul chain for Element 'mul'),
//   Concat       for more than one term,
//   Identity     for an identity unit that only forwards one whole value,
//   then the kernel: Conv (+ Relu/Tanh/Sigmoid for act ≠ identity; IOS's conv
//   is conv+bn+act folded for inference, so Conv carries a bias), MaxPool,
//   AveragePool (count_include_pad, as IOS's cuDNN runtime), GlobalAveragePool,
//   GlobalMaxPool, Relu, Tanh, Sigmoid.
// Every unit's output shape is inferred with IOS's formulas and must equal the
// config's output_shape. Batch comes from SampleOptions::batch, weights from
// ModelBuilder's seeded initialiser (SampleOptions::seed).
//
// Node names recover the units: "block<B>/<unit>/<Op>" (a repeated op gets
// "_1", "_2", ...), and "block<B>/<unit>/<inner>/<Op>" for the kernels inside a
// Sequential, e.g. "block3/14/Conv", "block3/14/Relu", "block1/17/15/Conv".
// A block of more than 64 units is read in cells (NASNet: a cell ends with the
// concatenation of 4+ hidden states), named "block<B>/cell<C>/<unit>/...".
// The model's metadata_props say the same exactly:
//   "ios.units"  {"<unit>": ["<node>", ...]}  every node of the graph is in exactly
//                one unit's list; a list is in topological order and its last node
//                produces the unit's output;
//   "ios.blocks" [{"enter": "<name>", "exit": "<unit>", "units": [...],
//                  "parts": [sizes...] (only when the block has explicit parts)}].
#pragma once

#include "core/plugin/samples.h"
#include "core/support/status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace tessera {

// The model metadata keys (ONNX metadata_props) that carry the units and
// blocks (above); plugins/ios/iosformat.h reads them back.
inline constexpr char kIosUnitsKey[] = "ios.units";   // JSON: [{"name", "nodes": [...]}]
inline constexpr char kIosBlocksKey[] = "ios.blocks"; // JSON: [{"units": [...], "parts": [[...]]}]

// "inception_v3", "squeezenet", "randwire", "nasnet".
const std::vector<std::string> &iosNetworkNames();

// The four networks as samples ("inception-v3", "squeezenet", "randwire",
// "nasnet-a"), which the plugin registers (Extensions::addSample).
std::vector<SampleNetwork> iosSampleNetworks();
// The network of a sample name or network name; "" for any other name.
std::string iosNetworkOfSample(std::string_view sampleName);

// The embedded IOS config of one of iosNetworkNames(), byte for byte as the IOS artifact wrote it.
Expected<std::string> iosNetworkConfig(std::string_view name);

// Builds one of iosNetworkNames(). Their input size is fixed (299, 224, 224,
// 331): SampleOptions::imageSize must be 0 or that size. NasNet's block
// carries its explicit per-cell parts (from the artifact's model summary).
Expected<std::unique_ptr<onnx::ModelProto>> buildIosNetwork(std::string_view name, const SampleOptions &opts);

// Converts any IOS graph config (JSON) to ONNX. A block may carry an optional
// "parts" array of unit counts (a Tessera extension; IOS keeps parts in Python).
// Errors name the offending unit; `sourceName` becomes the diagnostics' file.
Expected<std::unique_ptr<onnx::ModelProto>> buildFromIosConfig(std::string_view json, const SampleOptions &opts,
                                                               std::string_view sourceName = {});

} // namespace tessera
