// Internal: one builder per sample network family (resnet.cpp, mobilenet.cpp,
// densenet.cpp, vgg.cpp, darknet.cpp, transformer.cpp, nerf.cpp). catalog.cpp
// validates the options first; these builders may assume batch >= 1, a valid
// image size (0 = default) and a valid sequence length.
#pragma once

#include "samples/catalog.h"

#include <onnx/onnx_pb.h> // ModelResult is destroyed where it is built

namespace tessera::samples {

using ModelResult = Expected<std::unique_ptr<onnx::ModelProto>>;

ModelResult buildResNet50(const SampleOptions &opts);
ModelResult buildResNet18Tailor(const SampleOptions &opts);
ModelResult buildMobileNetV2(const SampleOptions &opts);
ModelResult buildDenseNet121(const SampleOptions &opts);
ModelResult buildVgg16(const SampleOptions &opts);
ModelResult buildDarknet53(const SampleOptions &opts);
ModelResult buildBert(const SampleOptions &opts);
ModelResult buildVit(const SampleOptions &opts);
ModelResult buildConformer(const SampleOptions &opts);
ModelResult buildNerfMlp(const SampleOptions &opts);

} // namespace tessera::samples
