// Device files: JSON → Device and back.
//
// Schema (version 1; resources/devices/README.md has the long form). Every
// object rejects keys it does not know, so a typo is an error, not a default.
// Sizes, rates and times are a JSON number in the base unit or a string with a
// unit ("64 KiB", "900 GB/s", "125 TFLOP/s", "5 us", "1.53 GHz"; see Quantity).
//
//   {
//     "schema": 1,                              optional, must be 1
//     "id": "nvidia-v100",                      required, [a-z0-9._-]+
//     "name": "NVIDIA Tesla V100 SXM2 16 GB",   required
//     "kind": "gpu",                            required: dsa | gpu | cpu
//     "vendor", "description", "notes": "...",  optional text
//     "source": "...",                          required: where the numbers come from
//     "clock": "1530 MHz",                      optional, 0 = unknown
//     "topology": { "clusters": 1, "coresPerCluster": 80, "unitsPerCore": 2 },   required
//     "levels": [                               required, fast → slow
//       { "name": "SMEM", "scope": "per-core",  scope: per-unit | per-core | per-cluster | shared
//         "capacity": "96 KiB",                 one instance
//         "bandwidth": "12080 GB/s",            whole device
//         "transaction": 32 | {"read": 128, "write": 32},   optional, bytes, default 1
//         "latency": "20 ns",                   optional, default 0
//         "energyPerBytePj": 1.2 }              optional, default 0 = unknown
//     ],
//     "units": [                                required
//       { "name": "Tensor Core", "kind": "matrix",   kind: scalar | vector | matrix | simt
//         "countPerCore": 8,                    optional, default 1
//         "cores": 80,                          optional: cores carrying the unit, default all
//         "peak": { "f16": "125 TFLOP/s" },     required, whole device, keys are dtype names
//         "ops": ["gemm"],                      optional: gemm | elementwise | reduction |
//                                               movement | other; default all
//         "energyPerOpPj": { "f16": 0.5 } }     optional
//     ],
//     "gpu": {                                  required for kind gpu, forbidden otherwise
//       "warpSize": 32, "smPartitions": 4, "maxThreadsPerSm": 2048, "maxThreadsPerBlock": 1024,
//       "maxBlocksPerSm": 32, "registersPerSm": 65536, "maxRegistersPerThread": 255,
//       "sharedMemPerSm": "96 KiB", "maxSharedMemPerBlock": "48 KiB" },   all required
//     "overheads": { "kernelLaunch": "5 us", "sync": "3 us", "dmaSetup": "1 us", "atomic": "87.45 ns",
//                    "deviceLaunch": "210 ns" },
//                                               optional, each default 0
//     "power": { "tdpWatts": 300, "staticWatts": 50 },   optional, default 0 = unknown
//     "estimated": ["levels[1].bandwidth", "power"]      optional: paths that are estimates
//   }
//
// Errors are Status::invalid with Location{file = sourceName} and a message that
// starts with the field path: "levels[2].bandwidth: expected a number or a string
// like '900 GB/s', got true". Malformed JSON also carries the byte offset.
#pragma once

#include "core/hw/device.h"
#include "core/support/status.h"

#include <QByteArray>
#include <QString>

namespace tessera {

inline constexpr int kDeviceSchemaVersion = 1;

Expected<Device> parseDevice(const QByteArray &json, const QString &sourceName);

// Writes every field, quantities with units; parseDevice(toJson(d)) == d.
QByteArray toJson(const Device &d);

} // namespace tessera
