// Transformer samples: BERT-base, ViT-B/16 and a Conformer encoder.
//
// All three share one multi-head self-attention export, the shape PyTorch
// gives it: per head-split projection Linear (MatMul + Add) → Reshape
// [N, L, h, d/h] → Transpose; scores = MatMul(Q, Kᵀ) / √(d/h) (+ mask) →
// Softmax → MatMul(·, V) → Transpose → Reshape [N, L, d]. GELU is the exact,
// erf-based form x · ½ · (1 + erf(x/√2)) as Div, Erf, Add, Mul, Mul. Dropout is
// an identity at inference and is not exported.
//
// bert: BERT-base (Devlin et al., NAACL 2019; HuggingFace's BertModel): inputs
//   input_ids, attention_mask, token_type_ids [batch, seqLen] int64 (seqLen ≤
//   512); word (30522), position (512) and token-type (2) embeddings gathered
//   and summed, LayerNorm (ε 1e-12); the mask becomes (1 − mask) · −10000
//   added to every layer's scores; 12 post-LN layers of hidden 768, 12 heads,
//   FFN 3072; pooler Gemm + Tanh on the first token. 96 MatMul, 109.48 M
//   parameters. Names: "encoder/layer.3/attention/self/query/MatMul".
// vit: ViT-B/16 (Dosovitskiy et al., ICLR 2021; torchvision's vit_b_16) at
//   224×224: Conv 16×16/16 patch embedding → [N, 196, 768], class token
//   (Expand, Concat), learned position embedding Add, 12 pre-LN layers (ε
//   1e-6) of hidden 768, 12 heads, MLP 3072, final LayerNorm, Gemm 1000 on the
//   class token. 86.57 M parameters. Names: "encoder/layers/encoder_layer_4/mlp/0".
// conformer: the Conformer encoder (Gulati et al., Interspeech 2020) at the
//   Conformer(M) size — 16 blocks, d = 256, 4 heads, FFN 1024 (the paper's
//   Conformer(S) has d = 144; d = 256 is its (M) row). Input: seqLen frames of
//   80 log-mel features [batch, seqLen, 80] (seqLen ≥ 7); Conv2d subsampling
//   (two Conv 3×3/2 + ReLU, Linear to d) gives ⌊(⌊(seqLen−3)/2⌋−1)/2⌋+1 encoder
//   frames. Each block: ½·FFN (LayerNorm, Linear, Swish, Linear) residual;
//   MHSA (LayerNorm, attention, out projection) residual; convolution module
//   (LayerNorm, pointwise Conv1d to 2d, GLU as Split → Sigmoid → Mul, depthwise
//   Conv1d, BatchNorm, Swish = x · Sigmoid(x), pointwise Conv1d) residual;
//   ½·FFN residual; LayerNorm. Deviations, as in torchaudio's and ESPnet's
//   Conformer: absolute (no relative) positional encoding in the attention,
//   and a depthwise kernel of 31 instead of 32 so that "same" padding is
//   symmetric. The LSTM decoder is not part of the sample. 26.2 M parameters.
//   Names: "encoder/layers.7/conv_module/depthwise_conv".
#include "samples/networks.h"

#include <cmath>
#include <numeric>

namespace tessera::samples {

namespace {

constexpr int kInt64 = 7; // onnx::TensorProto::INT64

// Self-attention up to (not including) the output projection; x is [N, L, d].
std::string attention(ModelBuilder &b, const std::string &x, std::int64_t heads, const std::string &mask,
                      const std::string &q, const std::string &k, const std::string &v)
{
    const std::int64_t d = b.shape(x).back(), dh = d / heads;
    auto project = [&](const std::string &name, std::vector<std::int64_t> perm) {
        const std::string y = b.reshape(b.linear(x, name, d), name + "/Reshape", {0, 0, heads, dh});
        return b.transpose(y, name + "/Transpose", std::move(perm));
    };
    const std::string qh = project(q, {0, 2, 1, 3}), kt = project(k, {0, 2, 3, 1}), vh = project(v, {0, 2, 1, 3});
    std::string s = b.matmul(qh, kt, "MatMul");
    s = b.binary("Div", s, b.constantScalar("scale", std::sqrt(static_cast<float>(dh))), "Div");
    if (!mask.empty())
        s = b.binary("Add", s, mask, "Add");
    const std::string ctx = b.matmul(b.softmax(s, "Softmax"), vh, "MatMul_1");
    return b.reshape(b.transpose(ctx, "Transpose", {0, 2, 1, 3}), "Reshape", {0, 0, d});
}

std::string gelu(ModelBuilder &b, const std::string &x, const std::string &name)
{
    ScopeGuard scope(b, name);
    std::string y = b.binary("Div", x, b.constantScalar("sqrt2", std::sqrt(2.0f)), "Div");
    y = b.binary("Add", b.unary("Erf", y, "Erf"), b.constantScalar("one", 1.0f), "Add");
    y = b.binary("Mul", x, y, "Mul");
    return b.binary("Mul", y, b.constantScalar("half", 0.5f), "Mul_1");
}

std::string swish(ModelBuilder &b, const std::string &x, const std::string &name)
{
    ScopeGuard scope(b, name);
    return b.binary("Mul", x, b.unary("Sigmoid", x, "Sigmoid"), "Mul");
}

// x[:, 0] for x [N, L, d] → [N, d].
std::string firstToken(ModelBuilder &b, const std::string &x, const std::string &name)
{
    const auto &s = b.shape(x);
    return b
        .node("Gather", name, {x, b.constantInt(name + ".index", 0)}, {ModelBuilder::aInt("axis", 1)}, {{s[0], s[2]}})
        .front();
}

} // namespace

ModelResult buildBert(const SampleOptions &opts)
{
    constexpr std::int64_t d = 768, heads = 12, ffn = 3072, layers = 12, vocab = 30522, positions = 512;
    const std::int64_t n = opts.batch, len = opts.seqLen;
    const float embScale = 0.02f * std::sqrt(3.0f); // BERT's N(0, 0.02) init, as a uniform
    ModelBuilder b("bert_base", opts.seed);
    b.setCancel(opts.cancel);
    const std::string ids = b.input("input_ids", {n, len}, kInt64);
    const std::string mask = b.input("attention_mask", {n, len}, kInt64);
    const std::string types = b.input("token_type_ids", {n, len}, kInt64);
    std::string x;
    {
        ScopeGuard scope(b, "embeddings");
        auto embed = [&](const std::string &table, std::int64_t rows, const std::string &indices) {
            std::vector<std::int64_t> out = b.shape(indices);
            out.push_back(d);
            return b.node("Gather", table, {b.weight(table + ".weight", {rows, d}, embScale), indices}, {}, {out})
                .front();
        };
        std::vector<std::int64_t> positionIds(static_cast<std::size_t>(len));
        std::iota(positionIds.begin(), positionIds.end(), 0);
        x = embed("word_embeddings", vocab, ids); // one statement per node keeps the node order compiler-independent
        x = b.binary("Add", x, embed("token_type_embeddings", 2, types), "add");
        x = b.binary("Add", x, embed("position_embeddings", positions, b.constantInts("position_ids", positionIds)),
                     "add_1");
        x = b.layerNorm(x, "LayerNorm", 1e-12f);
    }
    // Extended attention mask: [N, 1, 1, L] float, 0 where attended, −10000 where masked.
    std::string m =
        b.node("Unsqueeze", "mask/Unsqueeze", {mask, b.constantInts("mask.axes", {1, 2})}, {}, {{n, 1, 1, len}})
            .front();
    m = b.node("Cast", "mask/Cast", {m}, {ModelBuilder::aInt("to", 1)}, {{n, 1, 1, len}}).front();
    m = b.binary("Sub", b.constantScalar("mask.one", 1.0f), m, "mask/Sub");
    m = b.binary("Mul", m, b.constantScalar("mask.min", -10000.0f), "mask/Mul");
    {
        ScopeGuard encoder(b, "encoder");
        for (std::int64_t i = 0; i < layers; ++i) {
            ScopeGuard layer(b, "layer." + std::to_string(i));
            {
                ScopeGuard att(b, "attention");
                std::string ctx;
                {
                    ScopeGuard self(b, "self");
                    ctx = attention(b, x, heads, m, "query", "key", "value");
                }
                ScopeGuard out(b, "output");
                x = b.layerNorm(b.binary("Add", b.linear(ctx, "dense", d), x, "add"), "LayerNorm", 1e-12f);
            }
            std::string h;
            {
                ScopeGuard inter(b, "intermediate");
                h = gelu(b, b.linear(x, "dense", ffn), "intermediate_act_fn");
            }
            ScopeGuard out(b, "output");
            x = b.layerNorm(b.binary("Add", b.linear(h, "dense", d), x, "add"), "LayerNorm", 1e-12f);
        }
    }
    b.output(x);
    ScopeGuard pooler(b, "pooler");
    b.output(b.unary("Tanh", b.gemm(firstToken(b, x, "select"), "dense", d), "activation"));
    return b.finish();
}

ModelResult buildVit(const SampleOptions &opts)
{
    constexpr std::int64_t d = 768, heads = 12, mlp = 3072, layers = 12, patch = 16;
    const std::int64_t n = opts.batch, size = opts.imageSize ? opts.imageSize : 224;
    const std::int64_t tokens = (size / patch) * (size / patch) + 1;
    ModelBuilder b("vit_b_16", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("input", {n, 3, size, size});
    x = b.conv(x, "conv_proj", d, patch, patch, 0);
    x = b.transpose(b.reshape(x, "reshape", {0, d, -1}), "permute", {0, 2, 1});
    const std::string cls =
        b.node("Expand", "class_token/Expand",
               {b.weight("class_token", {1, 1, d}, 0.02f), b.constantInts("class_token.shape", {n, 1, d})}, {},
               {{n, 1, d}})
            .front();
    x = b.concat({cls, x}, "cat", 1);
    {
        ScopeGuard encoder(b, "encoder");
        x = b.binary("Add", x, b.weight("pos_embedding", {1, tokens, d}, 0.02f), "add");
        {
            ScopeGuard all(b, "layers");
            for (std::int64_t i = 0; i < layers; ++i) {
                ScopeGuard layer(b, "encoder_layer_" + std::to_string(i));
                std::string y = b.layerNorm(x, "ln_1", 1e-6f);
                {
                    ScopeGuard att(b, "self_attention");
                    y = b.linear(attention(b, y, heads, {}, "q", "k", "v"), "out_proj", d);
                }
                x = b.binary("Add", x, y, "add");
                y = b.layerNorm(x, "ln_2", 1e-6f);
                {
                    ScopeGuard m(b, "mlp");
                    y = b.linear(gelu(b, b.linear(y, "0", mlp), "1"), "3", d);
                }
                x = b.binary("Add", x, y, "add_1");
            }
        }
        x = b.layerNorm(x, "ln", 1e-6f);
    }
    x = firstToken(b, x, "select_class_token");
    ScopeGuard head(b, "heads");
    b.output(b.gemm(x, "head", 1000));
    return b.finish();
}

ModelResult buildConformer(const SampleOptions &opts)
{
    constexpr std::int64_t d = 256, heads = 4, ffn = 1024, blocks = 16, kernel = 31, mels = 80;
    const std::int64_t n = opts.batch, frames = opts.seqLen;
    ModelBuilder b("conformer_m", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("features", {n, frames, mels});
    {
        ScopeGuard sub(b, "subsampling");
        x = b.node("Unsqueeze", "unsqueeze", {x, b.constantInts("unsqueeze.axes", {1})}, {}, {{n, 1, frames, mels}})
                .front();
        x = b.relu(b.conv(x, "conv.0", d, 3, 2, 0), "conv.1");
        x = b.relu(b.conv(x, "conv.2", d, 3, 2, 0), "conv.3");
        x = b.reshape(b.transpose(x, "transpose", {0, 2, 1, 3}), "reshape", {0, 0, -1});
        x = b.linear(x, "out", d);
    }
    const std::string half = b.constantScalar("half_step", 0.5f);
    auto feedForward = [&](const std::string &in, const std::string &name) {
        ScopeGuard scope(b, name);
        std::string y = b.linear(b.layerNorm(in, "layer_norm"), "linear_1", ffn);
        y = b.linear(swish(b, y, "swish"), "linear_2", d);
        return b.binary("Mul", y, half, "half_step");
    };
    ScopeGuard encoder(b, "encoder");
    for (std::int64_t i = 0; i < blocks; ++i) {
        ScopeGuard block(b, "layers." + std::to_string(i));
        x = b.binary("Add", x, feedForward(x, "ffn1"), "add");
        std::string y;
        {
            ScopeGuard att(b, "self_attn");
            y = attention(b, b.layerNorm(x, "layer_norm"), heads, {}, "q", "k", "v");
            y = b.linear(y, "out_proj", d);
        }
        x = b.binary("Add", x, y, "add_1");
        {
            ScopeGuard conv(b, "conv_module");
            y = b.transpose(b.layerNorm(x, "layer_norm"), "transpose", {0, 2, 1}); // [N, d, T]
            y = b.conv(y, "pointwise_conv1", 2 * d, 1, 1, 0);
            std::vector<std::int64_t> halfShape = b.shape(y);
            halfShape[1] = d;
            const auto glu = b.node("Split", "glu/Split", {y, b.constantInts("glu.split", {d, d})},
                                    {ModelBuilder::aInt("axis", 1)}, {halfShape, halfShape});
            y = b.binary("Mul", glu[0], b.unary("Sigmoid", glu[1], "glu/Sigmoid"), "glu/Mul");
            y = b.conv(y, "depthwise_conv", d, kernel, 1, -1, d);
            y = swish(b, b.batchNorm(y, "batch_norm"), "swish");
            y = b.transpose(b.conv(y, "pointwise_conv2", d, 1, 1, 0), "transpose_1", {0, 2, 1});
        }
        x = b.binary("Add", x, y, "add_2");
        x = b.binary("Add", x, feedForward(x, "ffn2"), "add_3");
        x = b.layerNorm(x, "final_layer_norm");
    }
    b.output(x);
    return b.finish();
}

} // namespace tessera::samples
