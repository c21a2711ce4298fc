// The sample catalog (catalog.h): one table row per network with its
// provenance, the options it accepts, and the builder that makes it.
//
// Option checks live here, once, so the builders can assume them: batch ≥ 1;
// an image size is 0 (the network's default) or a multiple of the network's
// total stride within [stride, 1024], and only image networks take one;
// sequence lengths are checked for the networks that read them (BERT ≤ 512
// positions, the Conformer's subsampling needs ≥ 7 frames).
#include "samples/catalog.h"

#include "core/support/names.h"
#include "samples/networks.h"

namespace tessera::samples {

namespace {

enum class Input : std::uint8_t { Image, FixedImage, Sequence, Points };

struct Entry {
    SampleInfo info;
    Input input;
    int imageStride = 0; // Image: the image size must be a multiple of this; FixedImage: the only size
    ModelResult (*build)(const SampleOptions &) = nullptr;
};

const std::vector<Entry> &entries()
{
    static const std::vector<Entry> table = {
        {{"resnet50", "ResNet-50 (torchvision v1.5)",
          "He, Zhang, Ren, Sun: Deep Residual Learning for Image Recognition. CVPR 2016",
          "Bottleneck ResNet with un-fused Conv/BatchNormalization/Relu, 224×224, 25.6 M parameters."},
         Input::Image,
         32,
         buildResNet50},
        {{"resnet18-tailor", "ResNet-18-Tailor (skip connections removed)",
          "Weng et al.: Tailor: Altering Skip Connections for Resource-Efficient Inference. ACM TRETS 2023 "
          "(as used in GraphTurbo, OSDI 2023, §5.6)",
          "ResNet-18 without skip connections and with batch norm folded: a chain of 17 Conv+Relu layers, "
          "224×224."},
         Input::Image,
         32,
         buildResNet18Tailor},
        {{"mobilenetv2", "MobileNetV2 1.0",
          "Sandler et al.: MobileNetV2: Inverted Residuals and Linear Bottlenecks. CVPR 2018",
          "Inverted residual blocks with depthwise convolutions and ReLU6 (Clip), width 1.0, 224×224, "
          "3.5 M parameters."},
         Input::Image,
         32,
         buildMobileNetV2},
        {{"bert", "BERT-base",
          "Devlin, Chang, Lee, Toutanova: BERT: Pre-training of Deep Bidirectional Transformers for Language "
          "Understanding. NAACL 2019",
          "12 layers, hidden 768, 12 heads, FFN 3072, with embeddings and pooler (109.5 M parameters); "
          "--seq-len sets the token count (at most 512)."},
         Input::Sequence,
         0,
         buildBert},
        {{"vit", "ViT-B/16",
          "Dosovitskiy et al.: An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale. "
          "ICLR 2021",
          "16×16 patch embedding, class token, 12 pre-norm layers of hidden 768, 224×224, 86.6 M parameters."},
         Input::Image,
         16,
         buildVit},
        {{"densenet121", "DenseNet-121",
          "Huang, Liu, van der Maaten, Weinberger: Densely Connected Convolutional Networks. CVPR 2017",
          "Growth rate 32, dense blocks 6-12-24-16 with BN-ReLU-Conv layers and Concat, 224×224, 8.0 M "
          "parameters."},
         Input::Image,
         32,
         buildDenseNet121},
        {{"vgg16", "VGG-16",
          "Simonyan, Zisserman: Very Deep Convolutional Networks for Large-Scale Image Recognition. ICLR 2015",
          "13 Conv 3×3 + Relu in five stages and three fully connected layers, 224×224 only, 138.4 M "
          "parameters."},
         Input::FixedImage,
         224,
         buildVgg16},
        {{"darknet53", "Darknet-53", "Redmon, Farhadi: YOLOv3: An Incremental Improvement. 2018",
          "The YOLOv3 backbone (52 Conv with LeakyRelu 0.1 and residual Adds) with its ImageNet classifier "
          "head, 256×256."},
         Input::Image,
         32,
         buildDarknet53},
        {{"nerf-mlp", "NeRF MLP",
          "Mildenhall et al.: NeRF: Representing Scenes as Neural Radiance Fields for View Synthesis. ECCV 2020",
          "8×256 ReLU trunk with a skip concat of the encoded position, density head and 128-wide "
          "view-dependent colour branch; --batch is rays × samples."},
         Input::Points,
         0,
         buildNerfMlp},
        {{"conformer", "Conformer (M) encoder",
          "Gulati et al.: Conformer: Convolution-augmented Transformer for Speech Recognition. Interspeech 2020",
          "Conv2d subsampling and 16 Conformer blocks of d = 256 (FFN/2, MHSA, conv module, FFN/2) over "
          "--seq-len frames of 80 log-mel features."},
         Input::Sequence,
         0,
         buildConformer},
    };
    return table;
}

Status checkOptions(const Entry &e, const SampleOptions &o)
{
    const std::string &name = e.info.name;
    if (o.batch < 1)
        return Status::error(ErrorCode::Usage, "batch must be at least 1, got " + std::to_string(o.batch));
    switch (e.input) {
    case Input::Image:
        if (o.imageSize != 0 && (o.imageSize < e.imageStride || o.imageSize > 1024 || o.imageSize % e.imageStride))
            return Status::error(ErrorCode::Usage, "image size of '" + name + "' must be a multiple of " +
                                                       std::to_string(e.imageStride) + " in [" +
                                                       std::to_string(e.imageStride) + ", 1024], got " +
                                                       std::to_string(o.imageSize));
        break;
    case Input::FixedImage:
        if (o.imageSize != 0 && o.imageSize != e.imageStride)
            return Status::error(ErrorCode::Usage, "sample '" + name + "' takes only image size " +
                                                       std::to_string(e.imageStride) + ", got " +
                                                       std::to_string(o.imageSize));
        break;
    case Input::Sequence:
    case Input::Points:
        if (o.imageSize != 0)
            return Status::error(ErrorCode::Usage, "sample '" + name + "' has no image input, image size must be 0");
        break;
    }
    if (name == "bert" && (o.seqLen < 1 || o.seqLen > 512))
        return Status::error(ErrorCode::Usage,
                             "sequence length of 'bert' must be in [1, 512], got " + std::to_string(o.seqLen));
    if (name == "conformer" && o.seqLen < 7)
        return Status::error(ErrorCode::Usage, "sequence length of 'conformer' must be at least 7 frames, got " +
                                                   std::to_string(o.seqLen));
    return {};
}

} // namespace

const std::vector<SampleInfo> &sampleCatalog()
{
    static const std::vector<SampleInfo> infos = [] {
        std::vector<SampleInfo> v;
        for (const Entry &e : entries())
            v.push_back(e.info);
        return v;
    }();
    return infos;
}

Expected<std::unique_ptr<onnx::ModelProto>> buildSample(std::string_view name, const SampleOptions &options)
{
    for (const Entry &e : entries()) {
        if (!sameName(e.info.name, name))
            continue;
        if (Status s = checkOptions(e, options); !s)
            return s;
        return e.build(options);
    }
    std::string known;
    for (const Entry &e : entries())
        known += (known.empty() ? "" : ", ") + e.info.name;
    return Status::error(ErrorCode::Usage, "unknown sample '" + std::string(name) + "'; known: " + known);
}

std::vector<SampleNetwork> sampleNetworks()
{
    std::vector<SampleNetwork> networks;
    for (const Entry &e : entries())
        networks.push_back({e.info, [name = e.info.name](const SampleOptions &o) { return buildSample(name, o); }});
    return networks;
}

} // namespace tessera::samples
