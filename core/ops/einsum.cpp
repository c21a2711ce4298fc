// Einsum (ONNX Einsum-12): "a,b->c" subscripts over letters, with an optional
// "..." for broadcast dims and the implicit output of numpy when "->" is
// absent (the ellipsis dims, then the letters that appear once, in ASCII
// order). A letter repeated within one operand reads its diagonal; letters
// missing from the output are summed.
//
// Output[o] = Σ over the summed labels' ranges of Π_i input_i[its labels'
// values], with ellipsis dims broadcast (an extent-1 operand dim reads 0).
// Index map: an operand dim whose label is in the output follows that
// output dim (a repeated label: both dims, the hull of the diagonal); a
// summed label is read whole; a broadcast dim reads [0, 1).
// FLOPs: one multiply per extra operand and one add per term: (inputs) per
// point of the full label space.
#include "core/ops/einsum.h"

#include "core/ops/opdef.h"

#include <algorithm>
#include <map>

namespace tessera::ops {

namespace {

constexpr int kEllipsisBase = 128; // labels of ellipsis dims: kEllipsisBase + position from the left

// One operand's subscripts: letters, and where its "..." sits (-1: none).
struct Term {
    std::vector<int> letters;
    int ellipsisAt = -1;
};

Expected<Term> parseTerm(const detail::OpContext &c, std::string_view t)
{
    Term term;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char ch = t[i];
        if (ch == '.') {
            if (term.ellipsisAt >= 0 || t.substr(i, 3) != "...")
                return c.fail("equation term '" + std::string(t) + "' has a malformed '...'");
            term.ellipsisAt = static_cast<int>(term.letters.size());
            i += 2;
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
            term.letters.push_back(ch);
        } else {
            return c.fail("equation term '" + std::string(t) + "' has the character '" + std::string(1, ch) +
                          "', expected letters and '...'");
        }
    }
    return term;
}

} // namespace

namespace detail {
Expected<EinsumSpec> einsumSpec(const OpContext &c);
Expected<EinsumSpec> einsumSpec(const OpContext &c)
{
    std::string eq;
    for (char ch : c.n.attrString("equation", ""))
        if (ch != ' ')
            eq += ch;
    if (eq.empty())
        return c.fail("attribute 'equation' is missing or empty");
    const std::size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> terms{""};
    for (char ch : lhs)
        if (ch == ',')
            terms.emplace_back();
        else
            terms.back() += ch;
    if (terms.size() != c.n.inputs.size())
        return c.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " operands, the node " +
                      std::to_string(c.n.inputs.size()) + " inputs");
    EinsumSpec spec;
    spec.extents.assign(kEllipsisBase, -1);
    std::vector<Term> parsed;
    std::int64_t ellipsisRank = 0;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        auto t = parseTerm(c, terms[i]);
        if (!t)
            return t.status();
        const auto letters = static_cast<std::int64_t>(t->letters.size());
        if (t->ellipsisAt < 0 ? letters != c.rank(i) : letters > c.rank(i))
            return c.failAt(i, "operand '" + terms[i] + "' does not match input " + std::to_string(i) + " of shape " +
                                   dimsStr(c.shape(i)));
        if (t->ellipsisAt >= 0)
            ellipsisRank = std::max(ellipsisRank, c.rank(i) - letters);
        parsed.push_back(*t);
    }
    spec.extents.resize(static_cast<std::size_t>(kEllipsisBase + ellipsisRank), 1);
    std::map<int, int> count;
    for (std::size_t i = 0; i < parsed.size(); ++i) {
        const Term &t = parsed[i];
        const Shape &s = c.shape(i);
        const auto e = static_cast<int>(c.rank(i) - static_cast<std::int64_t>(t.letters.size()));
        std::vector<int> labels;
        for (int k = 0; k < static_cast<int>(t.letters.size()); ++k) {
            if (k == t.ellipsisAt)
                for (int j = 0; j < e; ++j)
                    labels.push_back(kEllipsisBase + static_cast<int>(ellipsisRank) - e + j);
            labels.push_back(t.letters[static_cast<std::size_t>(k)]);
        }
        if (t.ellipsisAt == static_cast<int>(t.letters.size()))
            for (int j = 0; j < e; ++j)
                labels.push_back(kEllipsisBase + static_cast<int>(ellipsisRank) - e + j);
        for (std::size_t d = 0; d < labels.size(); ++d) {
            const int l = labels[d];
            std::int64_t &ext = spec.extents[static_cast<std::size_t>(l)];
            if (l >= kEllipsisBase) {
                if (ext != s[d] && ext != 1 && s[d] != 1)
                    return c.failAt(i, "broadcast dims of input " + std::to_string(i) + " " + dimsStr(s) +
                                           " do not broadcast with the other operands");
                ext = std::max(ext, s[d]);
            } else {
                if (ext >= 0 && ext != s[d])
                    return c.failAt(i, "subscript '" + std::string(1, static_cast<char>(l)) + "' has extent " +
                                           std::to_string(s[d]) + " in input " + std::to_string(i) + ", " +
                                           std::to_string(ext) + " elsewhere");
                ext = s[d];
                ++count[l];
            }
        }
        spec.inputs.push_back(std::move(labels));
    }
    if (arrow == std::string::npos) { // numpy's implicit output
        for (int j = 0; j < ellipsisRank; ++j)
            spec.output.push_back(kEllipsisBase + j);
        for (const auto &[l, n] : count)
            if (n == 1)
                spec.output.push_back(l);
        return spec;
    }
    auto out = parseTerm(c, eq.substr(arrow + 2));
    if (!out)
        return out.status();
    for (int k = 0; k <= static_cast<int>(out->letters.size()); ++k) {
        if (k == out->ellipsisAt)
            for (int j = 0; j < ellipsisRank; ++j)
                spec.output.push_back(kEllipsisBase + j);
        if (k == static_cast<int>(out->letters.size()))
            break;
        const int l = out->letters[static_cast<std::size_t>(k)];
        if (!count.count(l))
            return c.fail("output subscript '" + std::string(1, static_cast<char>(l)) + "' is in no operand");
        if (std::count(spec.output.begin(), spec.output.end(), l))
            return c.fail("output subscript '" + std::string(1, static_cast<char>(l)) + "' is repeated");
        spec.output.push_back(l);
    }
    return spec;
}
} // namespace detail

Expected<EinsumSpec> einsumSpec(const Graph &g, const Node &n)
{
    return detail::einsumSpec(detail::OpContext(g, n));
}

namespace detail {
namespace {

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto spec = einsumSpec(c);
    if (!spec)
        return spec.status();
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i)
        if (c.in(i).dtype != c.in(0).dtype)
            return c.failAt(i, "input " + std::to_string(i) + " is " + std::string(dtypeName(c.in(i).dtype)) +
                                   ", input 0 is " + std::string(dtypeName(c.in(0).dtype)));
    Shape y;
    for (int l : spec->output)
        y.push_back(spec->extents[static_cast<std::size_t>(l)]);
    outs = {{c.in(0).dtype, y}};
    return Status::ok();
}

double flops(const OpContext &c)
{
    auto spec = einsumSpec(c);
    if (!spec)
        return 0;
    double points = 1;
    std::vector<bool> seen(spec->extents.size(), false);
    for (const auto &labels : spec->inputs)
        for (int l : labels)
            if (!seen[static_cast<std::size_t>(l)]) {
                seen[static_cast<std::size_t>(l)] = true;
                points *= static_cast<double>(spec->extents[static_cast<std::size_t>(l)]);
            }
    return static_cast<double>(c.n.inputs.size()) * points;
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto spec = einsumSpec(c);
    if (!spec)
        return spec.status();
    for (std::size_t i = 0; i < spec->inputs.size(); ++i) {
        const Shape &s = c.shape(i);
        std::vector<DimRange> dims;
        for (std::size_t d = 0; d < s.size(); ++d) {
            const int l = spec->inputs[i][d];
            const auto at = std::find(spec->output.begin(), spec->output.end(), l);
            if (s[d] == 1 && spec->extents[static_cast<std::size_t>(l)] != 1)
                dims.push_back(broadcastDim());
            else if (at != spec->output.end())
                dims.push_back(identityDim(tile[static_cast<std::size_t>(at - spec->output.begin())], s[d]));
            else
                dims.push_back(fullDim(s[d]));
        }
        in[i] = makeRegion(dims);
    }
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto spec = einsumSpec(c);
    if (!spec)
        return;
    for (std::size_t i = 0; i < spec->inputs.size(); ++i) {
        const Shape &s = c.shape(i);
        for (std::size_t d = 0; d < s.size(); ++d) {
            const int l = spec->inputs[i][d];
            const auto at = std::find(spec->output.begin(), spec->output.end(), l);
            if (s[d] == 1 && spec->extents[static_cast<std::size_t>(l)] != 1)
                continue; // broadcast: extent 1
            if (at != spec->output.end())
                in[i].maps.push_back(axisMap(static_cast<int>(at - spec->output.begin()), static_cast<int>(d)));
            else
                in[i].reducedDims.push_back(static_cast<int>(d));
        }
    }
}

constexpr AttrSpec kAttrs[] = {{"equation", Attribute::Kind::String}};
constexpr OpDef kOps[] = {
    {"Einsum", 1, -1, 1, 1, kAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> einsumOps()
{
    return kOps;
}

} // namespace detail

} // namespace tessera::ops
