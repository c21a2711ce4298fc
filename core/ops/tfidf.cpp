// TfIdfVectorizer (ONNX TfIdfVectorizer-9): X [N] or [B, N] (int32/int64
// tokens) -> Y [max(ngram_indexes) + 1] or [B, that] (float32). The pool
// (pool_int64s) lists the n-grams of length 1, 2, ... back to back,
// ngram_counts[k] the position where those of length k + 1 start,
// ngram_indexes the output position of each n-gram. For each length n in
// [min_gram_length, max_gram_length] and each skip s in [0, max_skip_count],
// every n-gram X[i], X[i + s + 1], ... that fits in the row and is in the
// pool counts once (length-1 n-grams once, whatever the skip, as ONNX
// Runtime counts them); mode TF gives the counts, IDF the weight (1 without
// weights) of every n-gram seen, TFIDF count·weight. String pools are
// refused naming the node.
// Index map: Y[b, :] reads X[b, :] whole (a 1-D X: all of it). FLOPs: none
// counted (comparisons).
#include "core/ops/tfidf.h"

#include "core/ops/opdef.h"

#include <algorithm>

namespace tessera::ops {

Expected<TfIdfSpec> tfIdfSpec(const Node &n)
{
    auto fail = [&](const std::string &m) { return Status::invalid("tfidfvectorizer: " + m, {.node = n.name}); };
    if (n.attr("pool_strings"))
        return Status::error(ErrorCode::Unsupported, "tfidfvectorizer: string pools are not supported",
                             {.node = n.name});
    TfIdfSpec s;
    s.minGram = n.attrInt("min_gram_length", 1);
    s.maxGram = n.attrInt("max_gram_length", 1);
    s.maxSkip = n.attrInt("max_skip_count", 0);
    if (s.minGram < 1 || s.maxGram < s.minGram || s.maxGram > 64 || s.maxSkip < 0 || s.maxSkip > (1 << 20))
        return fail("min_gram_length, max_gram_length and max_skip_count must satisfy 1 <= min <= max and skip >= 0");
    const std::string mode = n.attrString("mode", "");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
        return fail("mode '" + mode + "' is not TF, IDF or TFIDF");
    s.mode = mode == "TF" ? TfIdfSpec::Mode::TF : mode == "IDF" ? TfIdfSpec::Mode::IDF : TfIdfSpec::Mode::TFIDF;
    const auto pool = n.attrInts("pool_int64s"), counts = n.attrInts("ngram_counts"),
               indexes = n.attrInts("ngram_indexes");
    if (counts.empty() || static_cast<std::int64_t>(counts.size()) > s.maxGram)
        return fail("ngram_counts has " + std::to_string(counts.size()) + " entries, expected 1 to max_gram_length");
    std::size_t ordinal = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
        const std::int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : std::int64_t(pool.size());
        const auto len = static_cast<std::int64_t>(k + 1);
        if (begin < 0 || end < begin || end > static_cast<std::int64_t>(pool.size()) || (end - begin) % len != 0)
            return fail("ngram_counts " + detail::dimsStr(counts) + " do not split a pool of " +
                        std::to_string(pool.size()) + " into n-grams");
        s.pool.emplace_back();
        s.index.emplace_back();
        for (std::int64_t p = begin; p < end; p += len) {
            if (ordinal >= indexes.size())
                return fail("ngram_indexes has fewer entries than the pool has n-grams");
            s.pool.back().emplace_back(pool.begin() + p, pool.begin() + p + len);
            s.index.back().push_back(indexes[ordinal]);
            if (indexes[ordinal] < 0 || indexes[ordinal] >= (std::int64_t(1) << 32))
                return fail("ngram_indexes entry " + std::to_string(indexes[ordinal]) + " is negative or too large");
            s.outputs = std::max(s.outputs, indexes[ordinal] + 1);
            ++ordinal;
        }
    }
    if (ordinal != indexes.size())
        return fail("ngram_indexes has " + std::to_string(indexes.size()) + " entries, the pool " +
                    std::to_string(ordinal) + " n-grams");
    if (const Attribute *w = n.attr("weights")) {
        if (w->kind() != Attribute::Kind::Floats)
            return fail("attribute 'weights' must be floats");
        s.weights = std::get<std::vector<double>>(w->value);
        if (static_cast<std::int64_t>(s.weights.size()) != s.outputs)
            return fail("weights has " + std::to_string(s.weights.size()) + " entries, the output " +
                        std::to_string(s.outputs));
    }
    return s;
}

std::vector<double> tfIdfRow(const TfIdfSpec &spec, std::span<const std::int64_t> row)
{
    std::vector<double> counts(static_cast<std::size_t>(spec.outputs), 0.0);
    const auto len = static_cast<std::int64_t>(row.size());
    for (std::int64_t n = spec.minGram; n <= spec.maxGram && n <= static_cast<std::int64_t>(spec.pool.size()); ++n) {
        const auto &grams = spec.pool[static_cast<std::size_t>(n - 1)];
        for (std::int64_t skip = 0; skip <= (n == 1 ? 0 : spec.maxSkip); ++skip) {
            const std::int64_t step = skip + 1;
            for (std::int64_t i = 0; i + (n - 1) * step < len; ++i)
                for (std::size_t k = 0; k < grams.size(); ++k) {
                    bool match = true;
                    for (std::int64_t j = 0; j < n && match; ++j)
                        match = row[static_cast<std::size_t>(i + j * step)] == grams[k][static_cast<std::size_t>(j)];
                    if (match)
                        counts[static_cast<std::size_t>(spec.index[static_cast<std::size_t>(n - 1)][k])] += 1;
                }
        }
    }
    for (std::size_t o = 0; o < counts.size(); ++o) {
        const double w = spec.weights.empty() ? 1.0 : spec.weights[o];
        if (spec.mode == TfIdfSpec::Mode::IDF)
            counts[o] = counts[o] > 0 ? w : 0.0;
        else if (spec.mode == TfIdfSpec::Mode::TFIDF)
            counts[o] *= w;
    }
    return counts;
}

namespace detail {
namespace {

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    if (c.rank(0) != 1 && c.rank(0) != 2)
        return c.failAt(0, "X has shape " + dimsStr(c.shape(0)) + ", expected [N] or [B, N]");
    if (c.in(0).dtype != DType::Int32 && c.in(0).dtype != DType::Int64)
        return c.failAt(0, "X is " + std::string(dtypeName(c.in(0).dtype)) + ", expected i32 or i64 tokens");
    auto spec = tfIdfSpec(c.n);
    if (!spec)
        return spec.status();
    outs = {{DType::Float32, c.rank(0) == 1 ? Shape{spec->outputs} : Shape{c.shape(0)[0], spec->outputs}}};
    return Status::ok();
}

double flops(const OpContext &)
{
    return 0;
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    in[0] = x.size() == 1 ? wholeRegion(x) : makeRegion({identityDim(tile[0], x[0]), fullDim(x[1])});
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    if (c.rank(0) == 1)
        in[0] = wholeAxes(c.shape(0));
    else
        in[0] = {.maps = {axisMap(0, 0)}, .reducedDims = {1}};
}

using K = Attribute::Kind;
constexpr AttrSpec kAttrs[] = {
    {"max_gram_length", K::Int}, {"max_skip_count", K::Int}, {"min_gram_length", K::Int}, {"mode", K::String},
    {"ngram_counts", K::Ints},   {"ngram_indexes", K::Ints}, {"pool_int64s", K::Ints},    {"weights", K::Floats},
};
constexpr OpDef kOps[] = {
    {"TfIdfVectorizer", 1, 1, 1, 1, kAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> tfidfOps()
{
    return kOps;
}

} // namespace detail

} // namespace tessera::ops
