// The model the schedule fuzz targets read their inputs against: the IOS
// thesis' Fig. 3.1 (1) example (two 3x3 convolutions reading one value, then
// a pooling each and a concatenation), the same config as the seed
// corpus/iosconfig/fig31-merge.json; the schedule seeds were written for it by
// tessera-cli (docs/fuzzing.md). Small, so each input runs in microseconds.
#pragma once

#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"

#include <cstdio>
#include <cstdlib>

namespace tessera::fuzz {

inline constexpr char kFig31Config[] = R"json(
{"name": "fig31", "input": {"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [64, 28, 28]},
 "blocks": [{"enter_name": "x", "enter_node": {"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [64, 28, 28]},
   "inner_nodes": [
    {"type": "conv", "name": "a", "hint_name": "a", "inputs": [[["x", 0, 64]]], "out_channels": 128, "kernel": [3, 3],
     "stride": [1, 1], "padding": [1, 1], "groups": 1, "act": "relu", "output_shape": [128, 28, 28]},
    {"type": "conv", "name": "b", "hint_name": "b", "inputs": [[["x", 0, 64]]], "out_channels": 256, "kernel": [3, 3],
     "stride": [1, 1], "padding": [1, 1], "groups": 1, "act": "relu", "output_shape": [256, 28, 28]},
    {"type": "pool", "name": "pa", "hint_name": "pa", "inputs": [[["a", 0, 128]]], "pool_type": "global_avg", "output_shape": [128, 1, 1]},
    {"type": "pool", "name": "pb", "hint_name": "pb", "inputs": [[["b", 0, 256]]], "pool_type": "global_avg", "output_shape": [256, 1, 1]}],
   "exit_node": {"type": "identity", "name": "out", "hint_name": "out", "inputs": [[["pa", 0, 128]], [["pb", 0, 256]]], "output_shape": [384, 1, 1]},
   "stages": null}]}
)json";

struct Fig31 {
    ImportResult model;
    IosUnitSet units;
};

// Imported once; a failure is a broken build, not a finding.
inline const Fig31 &fig31()
{
    static const Fig31 f = [] {
        Fig31 out;
        auto model = importIosConfig(kFig31Config, "fig31.ios.json");
        if (!model) {
            std::fprintf(stderr, "fig31: %s\n", model.status().str().c_str());
            std::abort();
        }
        out.model = std::move(*model);
        auto units = iosUnitsOf(out.model);
        if (!units) {
            std::fprintf(stderr, "fig31: %s\n", units.status().str().c_str());
            std::abort();
        }
        out.units = std::move(*units);
        return out;
    }();
    return f;
}

} // namespace tessera::fuzz
