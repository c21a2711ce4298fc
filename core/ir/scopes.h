// Scope tokens of a node name, the raw material of name-based hierarchy
// inference (hierarchy.h).
//
// A name is split on '/', then each component on '.' and at '_' after an
// indexed word; the last token is the node's own name, the others its scopes:
//   "/layer1/layer1.0/conv1/Conv"                    -> layer1, layer1.0, conv1 | Conv
//   "/encoder/layer.3/attention/self/query/MatMul"   -> encoder, layer.3, attention, self, query | MatMul
//   "bert.encoder.layer.3.output.dense.MatMul"       -> bert, encoder, layer.3, output, dense | MatMul
//   "stage2_block1_conv", "block3/unit14/conv1/Conv" -> stage2, block1 | conv ; block3, unit14, conv1 | Conv
// Rules: a purely numeric piece stays with the word before it ("layer.3",
// "layer1.0", "dense_1"); '_' splits only after a word ending in a digit and
// before a letter ("stage2_block1" splits, "self_attn", "Conv_0" do not); a
// '/' component that repeats the previous component's tokens as a prefix
// ("layer1.0/layer1.0.conv1") keeps only the new part. Tokens are views into
// the name; at most kMaxScopeDepth scopes are kept.
#pragma once

#include <string_view>
#include <vector>

namespace tessera {

inline constexpr std::size_t kMaxScopeDepth = 32;

std::vector<std::string_view> nameScopes(std::string_view nodeName);

} // namespace tessera
