// MatMul and Gemm (ONNX MatMul-13, Gemm-13; Gemm's C optional as since opset 11).
//
// MatMul follows numpy.matmul: a 1-D A is [K] -> [1, K] and a 1-D B is
// [K] -> [K, 1], the added dim removed from the output; the batch dims
// broadcast multidirectionally. Y[b, m, n] = Σ_k A[b', m, k] B[b'', k, n]:
// K is read whole (reduced), batch dims of extent 1 broadcast.
// Gemm: Y = alpha * A' B' + beta * C with A' = transA ? Aᵀ : A (M x K),
// B' = transB ? Bᵀ : B (K x N), C unidirectionally broadcast to [M, N].
// FLOPs: 2·M·N·K per matrix (times the batch), plus M·N for adding C; the
// alpha/beta scalings are not counted (runtimes fold them).
//
// The integer forms share MatMul's geometry and index map:
// MatMulInteger-10: A, B int8/uint8, optional zero points (a_zero_point a
//   scalar or one per row of A, b_zero_point a scalar or one per column of
//   B); Y int32 = Σ_k (A - a_zp)(B - b_zp).
// QLinearMatMul-10: inputs a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
//   (per-tensor scalars); y = saturate(round(Σ_k (a - a_zp)(b - b_zp) ·
//   a_scale · b_scale / y_scale) + y_zp), of y_zp's type. Zero points and
//   scales are read whole.
// Det (ONNX Det-11): X [*, M, M] -> Y [*], the determinant of each matrix;
//   Y[b] reads its whole matrix. FLOPs: 2/3·M³ per matrix (an LU
//   factorization).
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

namespace {

// --- MatMul -------------------------------------------------------------------------

struct MatMulGeom {
    Shape batch; // broadcast batch dims
    std::int64_t m = 1, k = 0, n = 1;
    bool aVector = false, bVector = false;
};

// Where B is among the node's inputs.
std::size_t bInput(const OpContext &c)
{
    return c.n.opType == "QLinearMatMul" ? 3 : 1;
}

Expected<MatMulGeom> matmulGeom(const OpContext &c)
{
    const Shape &a = c.shape(0), &b = c.shape(bInput(c));
    if (a.empty() || b.empty())
        return c.fail("operands must have rank >= 1, got " + dimsStr(a) + " and " + dimsStr(b));
    MatMulGeom g;
    g.aVector = a.size() == 1;
    g.bVector = b.size() == 1;
    g.k = a.back();
    const std::int64_t kb = g.bVector ? b[0] : b[b.size() - 2];
    if (g.k != kb)
        return c.fail("inner dimensions " + std::to_string(g.k) + " and " + std::to_string(kb) + " of " + dimsStr(a) +
                      " and " + dimsStr(b) + " do not match");
    g.m = g.aVector ? 1 : a[a.size() - 2];
    g.n = g.bVector ? 1 : b.back();
    const Shape ab(a.begin(), a.end() - (g.aVector ? 1 : 2)), bb(b.begin(), b.end() - (g.bVector ? 1 : 2));
    g.batch = ab.size() >= bb.size() ? ab : bb;
    const Shape &other = ab.size() >= bb.size() ? bb : ab;
    const std::size_t lead = g.batch.size() - other.size();
    for (std::size_t d = 0; d < other.size(); ++d) {
        std::int64_t &o = g.batch[lead + d];
        if (o == other[d] || other[d] == 1)
            continue;
        if (o != 1)
            return c.fail("batch dimensions of " + dimsStr(a) + " and " + dimsStr(b) + " are not broadcastable");
        o = other[d];
    }
    return g;
}

Shape matmulOut(const MatMulGeom &g)
{
    Shape s = g.batch;
    if (!g.aVector)
        s.push_back(g.m);
    if (!g.bVector)
        s.push_back(g.n);
    return s;
}

Status inferMatMul(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = matmulGeom(c);
    if (!g)
        return g.status();
    const std::string_view op = c.n.opType;
    if (op == "MatMul") {
        outs = {{c.in(0).dtype, matmulOut(*g)}};
        return Status::ok();
    }
    const std::size_t bi = bInput(c);
    for (std::size_t i : {std::size_t{0}, bi})
        if (c.in(i).dtype != DType::Int8 && c.in(i).dtype != DType::UInt8)
            return c.failAt(i, std::string(i == 0 ? "A" : "B") + " is " + std::string(dtypeName(c.in(i).dtype)) +
                                   ", expected i8 or u8");
    const DType at = c.in(0).dtype, bt = c.in(bi).dtype;
    if (op == "MatMulInteger") {
        TS_TRY(checkQuantParam(c, 2, "a_zero_point", g->aVector ? 0 : g->m, {at}));
        TS_TRY(checkQuantParam(c, 3, "b_zero_point", g->bVector ? 0 : g->n, {bt}));
        outs = {{DType::Int32, matmulOut(*g)}};
        return Status::ok();
    }
    TS_TRY(checkQuantParam(c, 1, "a_scale", 0, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 2, "a_zero_point", 0, {at}));
    TS_TRY(checkQuantParam(c, 4, "b_scale", 0, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 5, "b_zero_point", 0, {bt}));
    TS_TRY(checkQuantParam(c, 6, "y_scale", 0, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 7, "y_zero_point", 0, {DType::Int8, DType::UInt8}));
    outs = {{c.in(7).dtype, matmulOut(*g)}};
    return Status::ok();
}

double flopsMatMul(const OpContext &c)
{
    auto g = matmulGeom(c);
    return g ? 2 * elements(g->batch) * static_cast<double>(g->m) * static_cast<double>(g->n) *
                   static_cast<double>(g->k)
             : 0;
}

// Batch dims of one operand (its leading `rank - matrixDims` dims), right-aligned to the output's.
void batchDims(const Region &tile, const Shape &outBatch, const Shape &in, std::size_t matrixDims,
               std::vector<DimRange> &dims)
{
    const std::size_t nb = in.size() - matrixDims, lead = outBatch.size() - nb;
    for (std::size_t d = 0; d < nb; ++d)
        dims.push_back(in[d] == 1 && outBatch[lead + d] != 1 ? broadcastDim() : identityDim(tile[lead + d], in[d]));
}

void batchAxes(const Shape &outBatch, const Shape &in, std::size_t matrixDims, InputAxes &ax)
{
    const Shape b(in.begin(), in.end() - static_cast<std::ptrdiff_t>(matrixDims));
    ax = broadcastAxes(outBatch, b);
}

Status regionsMatMul(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = matmulGeom(c);
    if (!g)
        return g.status();
    const std::size_t nb = g->batch.size();
    const Interval mTile = g->aVector ? Interval{0, 1} : tile[nb];
    const Interval nTile = g->bVector ? Interval{0, 1} : tile[tile.size() - 1];
    std::vector<DimRange> a, b;
    if (g->aVector) {
        a.push_back(fullDim(g->k));
    } else {
        batchDims(tile, g->batch, c.shape(0), 2, a);
        a.push_back(identityDim(mTile, g->m));
        a.push_back(fullDim(g->k));
    }
    if (g->bVector) {
        b.push_back(fullDim(g->k));
    } else {
        batchDims(tile, g->batch, c.shape(bInput(c)), 2, b);
        b.push_back(fullDim(g->k));
        b.push_back(identityDim(nTile, g->n));
    }
    in[0] = makeRegion(a);
    in[bInput(c)] = makeRegion(b);
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i) // zero points and scales
        if (i != bInput(c) && c.has(i))
            in[i] = wholeRegion(c.shape(i));
    return Status::ok();
}

void axesMatMul(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = matmulGeom(c);
    if (!g)
        return;
    const int nb = static_cast<int>(g->batch.size());
    InputAxes a, b;
    if (g->aVector) {
        a.reducedDims = {0};
    } else {
        batchAxes(g->batch, c.shape(0), 2, a);
        const int r = static_cast<int>(c.shape(0).size());
        a.maps.push_back(axisMap(nb, r - 2));
        a.reducedDims = {r - 1};
    }
    if (g->bVector) {
        b.reducedDims = {0};
    } else {
        batchAxes(g->batch, c.shape(bInput(c)), 2, b);
        const int r = static_cast<int>(c.shape(bInput(c)).size());
        b.maps.push_back(axisMap(nb + (g->aVector ? 0 : 1), r - 1));
        b.reducedDims = {r - 2};
    }
    in[0] = a;
    in[bInput(c)] = b;
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i)
        if (i != bInput(c) && c.has(i))
            in[i] = wholeAxes(c.shape(i));
}

// --- Gemm ---------------------------------------------------------------------------

struct GemmGeom {
    std::int64_t m = 0, k = 0, n = 0;
    bool transA = false, transB = false;
};

Expected<GemmGeom> gemmGeom(const OpContext &c)
{
    const Shape &a = c.shape(0), &b = c.shape(1);
    if (a.size() != 2 || b.size() != 2)
        return c.fail("operands must be matrices, got " + dimsStr(a) + " and " + dimsStr(b));
    GemmGeom g;
    g.transA = c.n.attrInt("transA", 0) != 0;
    g.transB = c.n.attrInt("transB", 0) != 0;
    g.m = g.transA ? a[1] : a[0];
    g.k = g.transA ? a[0] : a[1];
    const std::int64_t kb = g.transB ? b[1] : b[0];
    g.n = g.transB ? b[0] : b[1];
    if (g.k != kb)
        return c.fail("inner dimensions " + std::to_string(g.k) + " and " + std::to_string(kb) +
                      " do not match (transA=" + std::to_string(g.transA) + ", transB=" + std::to_string(g.transB) +
                      ")");
    if (c.has(2)) {
        const Shape &cs = c.shape(2);
        const Shape mn{g.m, g.n};
        bool ok = cs.size() <= 2;
        for (std::size_t d = 0; ok && d < cs.size(); ++d)
            ok = cs[d] == 1 || cs[d] == mn[2 - cs.size() + d];
        if (!ok)
            return c.failAt(2, "C has shape " + dimsStr(cs) + ", not broadcastable to " + dimsStr(mn));
    }
    return g;
}

Status inferGemm(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = gemmGeom(c);
    if (!g)
        return g.status();
    outs = {{c.in(0).dtype, {g->m, g->n}}};
    return Status::ok();
}

double flopsGemm(const OpContext &c)
{
    auto g = gemmGeom(c);
    if (!g)
        return 0;
    const double mn = static_cast<double>(g->m) * static_cast<double>(g->n);
    return 2 * mn * static_cast<double>(g->k) + (c.has(2) ? mn : 0);
}

Status regionsGemm(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = gemmGeom(c);
    if (!g)
        return g.status();
    const DimRange m = identityDim(tile[0], g->m), n = identityDim(tile[1], g->n), k = fullDim(g->k);
    in[0] = g->transA ? makeRegion({k, m}) : makeRegion({m, k});
    in[1] = g->transB ? makeRegion({n, k}) : makeRegion({k, n});
    if (c.has(2))
        in[2] = broadcastRegion(tile, c.outs[0].shape, c.shape(2));
    return Status::ok();
}

void axesGemm(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = gemmGeom(c);
    if (!g)
        return;
    in[0] = {.maps = {axisMap(0, g->transA ? 1 : 0)}, .reducedDims = {g->transA ? 0 : 1}};
    in[1] = {.maps = {axisMap(1, g->transB ? 0 : 1)}, .reducedDims = {g->transB ? 1 : 0}};
    if (c.has(2))
        in[2] = broadcastAxes(c.outs[0].shape, c.shape(2));
}

// --- Det ------------------------------------------------------------------------------------

Status inferDet(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
        return c.failAt(0, "X has shape " + dimsStr(x) + ", expected [*, M, M]");
    if (!isFloat(c.in(0).dtype))
        return c.failAt(0, "X is " + std::string(dtypeName(c.in(0).dtype)) + ", expected a float type");
    outs = {{c.in(0).dtype, Shape(x.begin(), x.end() - 2)}};
    return Status::ok();
}

double flopsDet(const OpContext &c)
{
    const Shape &x = c.shape(0);
    const double m = static_cast<double>(x.back());
    return elements(Shape(x.begin(), x.end() - 2)) * 2.0 / 3.0 * m * m * m;
}

Status regionsDet(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d + 2 < x.size(); ++d)
        dims.push_back(identityDim(tile[d], x[d]));
    dims.push_back(fullDim(x[x.size() - 2]));
    dims.push_back(fullDim(x.back()));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesDet(const OpContext &c, int, std::vector<InputAxes> &in)
{
    const int r = static_cast<int>(c.rank(0));
    for (int d = 0; d + 2 < r; ++d)
        in[0].maps.push_back(axisMap(d, d));
    in[0].reducedDims = {r - 2, r - 1};
}

constexpr AttrSpec kGemmAttrs[] = {
    {"alpha", Attribute::Kind::Float},
    {"beta", Attribute::Kind::Float},
    {"transA", Attribute::Kind::Int},
    {"transB", Attribute::Kind::Int},
};
constexpr OpDef kOps[] = {
    {"Gemm", 2, 3, 1, 1, kGemmAttrs, inferGemm, flopsGemm, regionsGemm, axesGemm},
    {"MatMul", 2, 2, 1, 1, {}, inferMatMul, flopsMatMul, regionsMatMul, axesMatMul},
    {"Det", 1, 1, 1, 1, {}, inferDet, flopsDet, regionsDet, axesDet},
    {"MatMulInteger", 2, 4, 1, 1, {}, inferMatMul, flopsMatMul, regionsMatMul, axesMatMul},
    {"QLinearMatMul", 8, 8, 1, 1, {}, inferMatMul, flopsMatMul, regionsMatMul, axesMatMul},
};

} // namespace

std::span<const OpDef> matmulOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
