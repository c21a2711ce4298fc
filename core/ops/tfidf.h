// TfIdfVectorizer's n-gram pool and counting, shared by core/ops (shapes,
// index map) and the backends (kernels). Definition in tfidf.cpp.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tessera::ops {

struct TfIdfSpec {
    std::int64_t minGram = 1, maxGram = 1, maxSkip = 0;
    enum class Mode { TF, IDF, TFIDF } mode = Mode::TF;
    std::vector<std::vector<std::vector<std::int64_t>>> pool; // pool[n - 1]: the n-grams of length n
    std::vector<std::vector<std::int64_t>> index;             // index[n - 1][k]: output position of pool[n - 1][k]
    std::vector<double> weights;                              // per output position (empty: 1)
    std::int64_t outputs = 0;                                 // max(ngram_indexes) + 1
};

// The node's attributes checked and unpacked (int64 pools only).
Expected<TfIdfSpec> tfIdfSpec(const Node &n);
// The output row of one input row: per n-gram of the pool, how often it
// occurs with each skip (n-grams of length 1 once), weighted by mode.
std::vector<double> tfIdfRow(const TfIdfSpec &spec, std::span<const std::int64_t> row);

} // namespace tessera::ops
