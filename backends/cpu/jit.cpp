// LLVM 16 ORC JIT for element-wise chains (see jit.h): the shared module
// libtessera_cpu_jit.so, the only part of the backend that links libLLVM. The
// backend dlopen()s it on the first chain to compile (jitcache.cpp), so a
// process that never compiles a plan never loads or relocates libLLVM.
//
// For an EwProgram of rank r the generated function is
//   void ew(float *noalias out, const float *const *ins)
//   for i0 < dims[0] ... for i{r-1} < dims[r-1]:
//     v_k = ins[k][Σ_d i_d * strides[k][d]]    (operands)
//     v_{n+j} = instrs[j](...)                  (straight-line code)
//     out[row-major(i)] = v_last
// with constant trip counts and strides, optimised at O3 for the host CPU
// (JITTargetMachineBuilder::detectHost: its ISA and features) so the loop
// vectoriser widens the innermost loop, where strides are 1 (contiguous) or
// 0 (broadcast). Exp, Sigmoid, Tanh and Erf are inline arithmetic (emitExp,
// emitTanh, emitErf: a few ulp, the C library's results at ±inf and NaN),
// so loops containing them vectorise too, and Log (emitLog); Pow stays
// llvm.pow (a call into the C library, found in the host process) but for
// x^2, which lower.cpp makes x·x.
//
// A RowProgram (jit.h) becomes
//   void rows(float *noalias out, const float *const *ins, i64 begin, i64 end)
// with a loop over rows [begin, end) and inside it one constant-trip loop
// over the row's L elements per pass: a reduction pass carries its float
// accumulator through the loop (fadd/fmul with the `reassoc` flag,
// llvm.maxnum/minnum), which the loop vectoriser turns into vector partial
// accumulators, interleaved, combined after the loop; its finish
// instructions and the later passes' expressions reuse emitInstr.
//
// A MoveProgram (jit.h) becomes
//   void move(void *noalias out, const void *in)
// a loop nest over its dims moving iN elements (N = 8·elementBytes) between
// constant strides. When the destination's innermost dim o is strided in
// the source and another dim c is contiguous there (a transpose), c and o
// are walked in kMoveBlock × kMoveBlock blocks, o innermost: a block reads
// kMoveBlock source lines and writes kMoveBlock destination lines, each
// used whole while in L1, where a plain walk would touch a new source line
// per element. Contiguous inner runs are left to LLVM (the vectoriser, or
// the loop-idiom pass's memcpy).
#include "backends/cpu/jit.h"

#include <cstdlib>
#include <functional>
#include <limits>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <memory>

namespace tessera::cpu {

namespace {

std::string errorText(llvm::Error e)
{
    return llvm::toString(std::move(e));
}

using Op = EwInstr::Op;

// exp(x) as vectorisable arithmetic (Cephes' expf: x = n·ln2 + r, |r| ≤
// ln2/2, a degree-7 polynomial in r, times 2^n built from the exponent bits;
// about 1 ulp): llvm.exp has no vector form without a vector math library,
// and the scalar expf calls it becomes keep a loop from being vectorised.
// x is clamped to [-104, 89] (exp rounds to 0 below, overflows above), and
// 2^n is applied as 2^⌊n/2⌋ · 2^(n-⌊n/2⌋), two normal floats for every such
// n, so one rounding makes the denormal results (x below -87.3) and inf
// (x above 88.72); -inf gives 0, NaN gives NaN: the C library's results.
llvm::Value *emitExp(llvm::IRBuilder<> &b, llvm::Value *x)
{
    llvm::Type *f = b.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
    llvm::Value *xc = b.CreateSelect(b.CreateFCmpOLT(x, c(-104.0)), c(-104.0), x);
    xc = b.CreateSelect(b.CreateFCmpOGT(xc, c(89.0)), c(89.0), xc);
    llvm::Value *n =
        b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFAdd(b.CreateFMul(xc, c(1.44269504088896341)), c(0.5)));
    llvm::Value *r =
        b.CreateFSub(b.CreateFSub(xc, b.CreateFMul(n, c(0.693359375))), b.CreateFMul(n, c(-2.12194440e-4)));
    llvm::Value *z = b.CreateFMul(r, r);
    llvm::Value *y = c(1.9875691500E-4);
    for (double k : {1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1})
        y = b.CreateFAdd(b.CreateFMul(y, r), c(k));
    y = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(y, z), r), c(1.0));
    llvm::Value *ni = b.CreateFPToSI(n, b.getInt32Ty());
    llvm::Value *n1 = b.CreateAShr(ni, 1), *n2 = b.CreateSub(ni, n1);
    auto pow2 = [&](llvm::Value *k) { return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), f); };
    y = b.CreateFMul(b.CreateFMul(y, pow2(n1)), pow2(n2));
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

// log(x) as vectorisable arithmetic (Cephes' logf: x = m·2^e with m in
// [√½, √2), log(m) by a degree-9 polynomial in m - 1, plus e·ln2 in two
// parts; about 1 ulp): denormal x scaled by 2^23 first; 0 gives -inf, a
// negative x or NaN gives NaN, +inf gives +inf, as the C library does.
llvm::Value *emitLog(llvm::IRBuilder<> &b, llvm::Value *x)
{
    llvm::Type *f = b.getFloatTy(), *i32 = b.getInt32Ty();
    auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
    llvm::Value *tiny = b.CreateFCmpOLT(x, c(1.17549435e-38));
    llvm::Value *xs = b.CreateSelect(tiny, b.CreateFMul(x, c(8388608.0)), x);
    llvm::Value *bits = b.CreateBitCast(xs, i32);
    llvm::Value *e = b.CreateSub(b.CreateLShr(bits, 23), b.getInt32(126)); // x = m·2^e, m in [0.5, 1)
    e = b.CreateSub(e, b.CreateSelect(tiny, b.getInt32(23), b.getInt32(0)));
    llvm::Value *m = b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, b.getInt32(0x007fffff)), b.getInt32(0x3f000000)), f);
    llvm::Value *low = b.CreateFCmpOLT(m, c(0.707106781186547524));
    e = b.CreateSub(e, b.CreateZExt(low, i32));
    m = b.CreateFSub(b.CreateSelect(low, b.CreateFAdd(m, m), m), c(1.0));
    llvm::Value *ef = b.CreateSIToFP(e, f);
    llvm::Value *z = b.CreateFMul(m, m);
    llvm::Value *y = c(7.0376836292E-2);
    for (double k : {-1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                     2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1})
        y = b.CreateFAdd(b.CreateFMul(y, m), c(k));
    y = b.CreateFMul(b.CreateFMul(y, m), z);
    y = b.CreateFAdd(y, b.CreateFMul(ef, c(-2.12194440e-4)));
    y = b.CreateFSub(y, b.CreateFMul(z, c(0.5)));
    llvm::Value *r = b.CreateFAdd(b.CreateFAdd(m, y), b.CreateFMul(ef, c(0.693359375)));
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    r = b.CreateSelect(b.CreateFCmpOEQ(x, c(inf)), c(inf), r);
    r = b.CreateSelect(b.CreateFCmpOEQ(x, c(0.0)), c(-inf), r);
    return b.CreateSelect(b.CreateFCmpULT(x, c(0.0)), c(nan), r); // x < 0 or NaN
}

// log(1 + u) for u ≥ 0 without losing u when 1 + u rounds: log(v)·u/(v - 1)
// with v = 1 + u (exact where v is; u itself where v is 1).
llvm::Value *emitLog1p(llvm::IRBuilder<> &b, llvm::Value *u)
{
    llvm::Type *f = b.getFloatTy();
    llvm::Value *one = llvm::ConstantFP::get(f, 1.0);
    llvm::Value *v = b.CreateFAdd(one, u);
    llvm::Value *d = b.CreateFSub(v, one);
    llvm::Value *r = b.CreateFMul(emitLog(b, v), b.CreateFDiv(u, d));
    return b.CreateSelect(b.CreateFCmpOEQ(d, llvm::ConstantFP::get(f, 0.0)), u, r);
}

// sigmoid(x) from e = exp(-|x|) ≤ 1: 1/(1 + e) for x ≥ 0, e/(1 + e) below
// (no overflow of exp(-x), denormal results where they are due).
llvm::Value *emitSigmoid(llvm::IRBuilder<> &b, llvm::Module &m, llvm::Value *x)
{
    llvm::Type *f = b.getFloatTy();
    llvm::Value *ax = b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::fabs, {f}), {x});
    llvm::Value *e = emitExp(b, b.CreateFNeg(ax));
    llvm::Value *s = b.CreateFDiv(llvm::ConstantFP::get(f, 1.0), b.CreateFAdd(llvm::ConstantFP::get(f, 1.0), e));
    return b.CreateSelect(b.CreateFCmpOLT(x, llvm::ConstantFP::get(f, 0.0)), b.CreateFMul(e, s), s);
}

// tanh(x) as Cephes' tanhf does, vectorisable: for |x| < 0.625 an odd
// polynomial (x + x³·P(x²): no cancellation near 0), else
// sign(x)·(1 - 2/(exp(2|x|) + 1)) with emitExp (1 for large |x|: exp is inf).
// NaN takes the polynomial and stays NaN. About 2 ulp.
llvm::Value *emitTanh(llvm::IRBuilder<> &b, llvm::Module &m, llvm::Value *x)
{
    llvm::Type *f = b.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
    llvm::Value *ax = b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::fabs, {f}), {x});
    llvm::Value *e = emitExp(b, b.CreateFAdd(ax, ax));
    llvm::Value *big = b.CreateFSub(c(1.0), b.CreateFDiv(c(2.0), b.CreateFAdd(e, c(1.0))));
    big = b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::copysign, {f}), {big, x});
    llvm::Value *s = b.CreateFMul(x, x);
    llvm::Value *p = c(-5.70498872745E-3);
    for (double k : {2.06390887954E-2, -5.37397155531E-2, 1.33314422036E-1, -3.33332819422E-1})
        p = b.CreateFAdd(b.CreateFMul(p, s), c(k));
    llvm::Value *small = b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, s), x), x);
    return b.CreateSelect(b.CreateFCmpOGE(ax, c(0.625)), big, small);
}

// erf(x) as a rational function, vectorisable: x·P(x²)/Q(x²) with x clamped
// to [-4, 4] (erf(±4) rounds to ±1 in float), the form and coefficients of
// Eigen's fast float erf, clamped to [-1, 1]; NaN stays NaN. Within 5 ulp
// of 1 (3e-7) of the C library's erf over [-110, 110], worst near ±3.8;
// exp, tanh and sigmoid within 2 ulp of their results (tst_cpu
// JitTranscendentalsMatchTheCLibrary).
llvm::Value *emitErf(llvm::IRBuilder<> &b, llvm::Value *x)
{
    llvm::Type *f = b.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
    llvm::Value *xc = b.CreateSelect(b.CreateFCmpOLT(x, c(-4.0)), c(-4.0), x);
    xc = b.CreateSelect(b.CreateFCmpOGT(xc, c(4.0)), c(4.0), xc);
    llvm::Value *x2 = b.CreateFMul(xc, xc);
    llvm::Value *p = c(0.00022905065861350646);
    for (double k : {0.0034082910107109506, 0.050955695062380861, 0.18520832239976145, 1.128379143519084})
        p = b.CreateFAdd(b.CreateFMul(p, x2), c(k));
    p = b.CreateFMul(p, xc);
    llvm::Value *q = c(-1.1791602954361697e-7);
    for (double k : {0.000023547966471313185, 0.0010179625278914885, 0.014070470171167667, 0.11098505178285362,
                     0.49746925110067538, 1.0})
        q = b.CreateFAdd(b.CreateFMul(q, x2), c(k));
    llvm::Value *y = b.CreateFDiv(p, q);
    y = b.CreateSelect(b.CreateFCmpOGT(y, c(1.0)), c(1.0), y); // the rational passes 1 by an ulp near ±4
    y = b.CreateSelect(b.CreateFCmpOLT(y, c(-1.0)), c(-1.0), y);
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

// Exp, Sigmoid's exp, Tanh and Erf are inline arithmetic (emitExp,
// emitTanh, emitErf), so that a loop containing them vectorises.
llvm::Value *emitInstr(llvm::IRBuilder<> &b, llvm::Module &m, const EwInstr &in, const std::vector<llvm::Value *> &v)
{
    llvm::Type *f = b.getFloatTy();
    auto intrinsic = [&](llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
        return b.CreateCall(llvm::Intrinsic::getDeclaration(&m, id, {f}), args);
    };
    llvm::Value *a = v[static_cast<std::size_t>(in.a)];
    llvm::Value *zero = llvm::ConstantFP::get(f, 0.0), *one = llvm::ConstantFP::get(f, 1.0);
    switch (in.op) {
    case Op::Relu: return b.CreateSelect(b.CreateFCmpOLT(a, zero), zero, a);
    case Op::LeakyRelu:
        return b.CreateSelect(b.CreateFCmpOLT(a, zero), b.CreateFMul(a, llvm::ConstantFP::get(f, in.alpha)), a);
    case Op::Sigmoid: return emitSigmoid(b, m, a);
    case Op::Tanh: return emitTanh(b, m, a);
    case Op::Exp: return emitExp(b, a);
    case Op::Log: return emitLog(b, a);
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, {a});
    case Op::Neg: return b.CreateFNeg(a);
    case Op::Abs: return intrinsic(llvm::Intrinsic::fabs, {a});
    case Op::Reciprocal: return b.CreateFDiv(one, a);
    case Op::Erf: return emitErf(b, a);
    case Op::Floor: return intrinsic(llvm::Intrinsic::floor, {a});
    case Op::Ceil: return intrinsic(llvm::Intrinsic::ceil, {a});
    case Op::Clip: {
        llvm::Value *lo = b.CreateSelect(b.CreateFCmpOLT(a, llvm::ConstantFP::get(f, in.alpha)),
                                         llvm::ConstantFP::get(f, in.alpha), a);
        return b.CreateSelect(b.CreateFCmpOGT(lo, llvm::ConstantFP::get(f, in.beta)), llvm::ConstantFP::get(f, in.beta),
                              lo);
    }
    case Op::HardSigmoid:
    case Op::HardSwish: {
        const bool swish = in.op == Op::HardSwish;
        llvm::Value *t = b.CreateFAdd(b.CreateFMul(a, llvm::ConstantFP::get(f, swish ? 1.0f / 6.0f : in.alpha)),
                                      llvm::ConstantFP::get(f, swish ? 0.5f : in.beta));
        t = b.CreateSelect(b.CreateFCmpOLT(t, zero), zero, t);
        t = b.CreateSelect(b.CreateFCmpOGT(t, one), one, t);
        return swish ? b.CreateFMul(a, t) : t;
    }
    case Op::Elu:
    case Op::Selu:
    case Op::Celu: {
        // alpha·(exp(a') - 1) for a ≤ 0 (Celu: a' = a / alpha, then min(0, ·) + max(0, a)).
        llvm::Value *arg = in.op == Op::Celu ? b.CreateFDiv(a, llvm::ConstantFP::get(f, in.alpha)) : a;
        llvm::Value *neg = b.CreateFMul(llvm::ConstantFP::get(f, in.alpha), b.CreateFSub(emitExp(b, arg), one));
        if (in.op == Op::Celu)
            return b.CreateFAdd(b.CreateSelect(b.CreateFCmpOGT(a, zero), a, zero),
                                b.CreateSelect(b.CreateFCmpOLT(neg, zero), neg, zero));
        llvm::Value *isNeg = in.op == Op::Elu ? b.CreateFCmpOLT(a, zero) : b.CreateFCmpOLE(a, zero);
        llvm::Value *r = b.CreateSelect(isNeg, neg, a);
        return in.op == Op::Selu ? b.CreateFMul(r, llvm::ConstantFP::get(f, in.beta)) : r;
    }
    case Op::ThresholdedRelu: return b.CreateSelect(b.CreateFCmpOGT(a, llvm::ConstantFP::get(f, in.alpha)), a, zero);
    case Op::Softplus: {
        // max(a, 0) + log1p(exp(-|a|)): no overflow, exact tails.
        llvm::Value *e = emitExp(b, b.CreateFNeg(intrinsic(llvm::Intrinsic::fabs, {a})));
        llvm::Value *r = b.CreateFAdd(b.CreateSelect(b.CreateFCmpOGT(a, zero), a, zero), emitLog1p(b, e));
        return b.CreateSelect(b.CreateFCmpUNO(a, a), a, r);
    }
    case Op::Softsign: return b.CreateFDiv(a, b.CreateFAdd(one, intrinsic(llvm::Intrinsic::fabs, {a})));
    case Op::Shrink: {
        llvm::Value *lambd = llvm::ConstantFP::get(f, in.alpha), *bias = llvm::ConstantFP::get(f, in.beta);
        return b.CreateSelect(b.CreateFCmpOLT(a, b.CreateFNeg(lambd)), b.CreateFAdd(a, bias),
                              b.CreateSelect(b.CreateFCmpOGT(a, lambd), b.CreateFSub(a, bias), zero));
    }
    case Op::Sign: // 0 for ±0 and NaN, as the reference kernel's (x > 0) - (x < 0)
        return b.CreateSelect(b.CreateFCmpOGT(a, zero), one,
                              b.CreateSelect(b.CreateFCmpOLT(a, zero), llvm::ConstantFP::get(f, -1.0), zero));
    case Op::Round: return intrinsic(llvm::Intrinsic::nearbyint, {a});
    default: break;
    }
    llvm::Value *c = v[static_cast<std::size_t>(in.b)];
    switch (in.op) {
    case Op::Add: return b.CreateFAdd(a, c);
    case Op::Sub: return b.CreateFSub(a, c);
    case Op::Mul: return b.CreateFMul(a, c);
    case Op::Div: return b.CreateFDiv(a, c);
    case Op::Max: return b.CreateSelect(b.CreateFCmpOLT(a, c), c, a);
    case Op::Min: return b.CreateSelect(b.CreateFCmpOGT(a, c), c, a);
    case Op::Pow: return intrinsic(llvm::Intrinsic::pow, {a, c});
    case Op::PRelu: return b.CreateSelect(b.CreateFCmpOLT(a, zero), b.CreateFMul(a, c), a);
    case Op::MulAdd: return b.CreateFAdd(b.CreateFMul(a, c), v[static_cast<std::size_t>(in.c)]);
    default: break;
    }
    return a;
}

// Emits the function `name` for `p` into `m`.
void emitFunction(llvm::Module &m, const std::string &name, const EwProgram &p, llvm::TargetMachine &tm)
{
    llvm::LLVMContext &ctx = m.getContext();
    llvm::IRBuilder<> b(ctx);
    llvm::Type *i64 = b.getInt64Ty(), *f = b.getFloatTy();
    llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
    auto *fnType = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr}, false);
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    fn->addFnAttr("target-cpu", tm.getTargetCPU());
    fn->addFnAttr("target-features", tm.getTargetFeatureString());
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value *out = fn->getArg(0), *ins = fn->getArg(1);

    auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    b.SetInsertPoint(entry);
    std::vector<llvm::Value *> base;
    for (std::size_t k = 0; k < p.strides.size(); ++k)
        base.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, ins, k), "in" + std::to_string(k)));

    const std::size_t rank = p.dims.size();
    std::vector<std::int64_t> outStrides(rank, 1);
    for (std::size_t d = rank; d-- > 1;)
        outStrides[d - 1] = outStrides[d] * p.dims[d];

    // Loop nest: one induction variable per dim.
    std::vector<llvm::PHINode *> iv(rank);
    std::vector<llvm::BasicBlock *> headers(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        llvm::BasicBlock *pre = b.GetInsertBlock();
        headers[d] = llvm::BasicBlock::Create(ctx, "loop" + std::to_string(d), fn);
        b.CreateBr(headers[d]);
        b.SetInsertPoint(headers[d]);
        iv[d] = b.CreatePHI(i64, 2, "i" + std::to_string(d));
        iv[d]->addIncoming(b.getInt64(0), pre);
    }
    // Body.
    auto offset = [&](const std::vector<std::int64_t> &strides) {
        llvm::Value *o = b.getInt64(0);
        for (std::size_t d = 0; d < rank; ++d)
            if (strides[d] != 0) // no unsigned wrap only where the stride is positive (a reversed Slice's is not)
                o = b.CreateAdd(o, b.CreateMul(iv[d], b.getInt64(strides[d])), "", strides[d] > 0, true);
        return o;
    };
    std::vector<llvm::Value *> values;
    for (std::size_t k = 0; k < p.strides.size(); ++k)
        values.push_back(b.CreateLoad(f, b.CreateInBoundsGEP(f, base[k], offset(p.strides[k]))));
    for (const EwInstr &in : p.instrs)
        values.push_back(emitInstr(b, m, in, values));
    b.CreateStore(values.back(), b.CreateInBoundsGEP(f, out, offset(outStrides)));
    // Latches, innermost first.
    for (std::size_t d = rank; d-- > 0;) {
        llvm::Value *next = b.CreateAdd(iv[d], b.getInt64(1), "", true, true);
        iv[d]->addIncoming(next, b.GetInsertBlock());
        auto *exit = llvm::BasicBlock::Create(ctx, "exit" + std::to_string(d), fn);
        b.CreateCondBr(b.CreateICmpSLT(next, b.getInt64(p.dims[d])), headers[d], exit);
        b.SetInsertPoint(exit);
    }
    b.CreateRetVoid();
}

// Emits `for (i = begin; i < end; ++i) body(i, acc)` at the builder's point
// (begin < end: at least one trip), with one loop-carried value when `init`
// is set (its value on entry; body returns the next). Returns the carried
// value after the loop (null without one).
llvm::Value *emitLoop(llvm::IRBuilder<> &b, llvm::Value *begin, llvm::Value *end, llvm::Value *init,
                      const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &body, unsigned interleave = 1)
{
    llvm::Function *fn = b.GetInsertBlock()->getParent();
    llvm::LLVMContext &ctx = fn->getContext();
    llvm::BasicBlock *pre = b.GetInsertBlock();
    auto *loop = llvm::BasicBlock::Create(ctx, "loop", fn);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, "i");
    i->addIncoming(begin, pre);
    llvm::PHINode *acc = nullptr;
    if (init) {
        acc = b.CreatePHI(init->getType(), 2, "acc");
        acc->addIncoming(init, pre);
    }
    llvm::Value *next = body(i, acc);
    llvm::BasicBlock *latch = b.GetInsertBlock();
    llvm::Value *inc = b.CreateAdd(i, b.getInt64(1), "", true, true);
    i->addIncoming(inc, latch);
    if (acc)
        acc->addIncoming(next, latch);
    auto *exit = llvm::BasicBlock::Create(ctx, "exit", fn);
    llvm::BranchInst *br = b.CreateCondBr(b.CreateICmpSLT(inc, end), loop, exit);
    // No full unrolling before the loop vectoriser sees the loop (a fully
    // unrolled max of 128 elements stayed a scalar chain), and a reduction's
    // vector loop interleaved `interleave` times (that many vector
    // accumulators: with one, it waited on its fadd's latency).
    std::vector<llvm::Metadata *> hints{nullptr,
                                        llvm::MDNode::get(ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"))};
    if (acc && interleave > 1)
        hints.push_back(llvm::MDNode::get(
            ctx, {llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
                  llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), interleave))}));
    llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, hints);
    id->replaceOperandWith(0, id);
    br->setMetadata(llvm::LLVMContext::MD_loop, id);
    b.SetInsertPoint(exit);
    return acc ? next : nullptr;
}

// The vector accumulators of a reduction over `length` elements: of 1, 2, 4,
// the one with the fewest dependent steps, each vector step (8 floats, as
// LLVM's default 256-bit vectors on x86-64) and each scalar remainder step
// costing one add latency (ties: fewer). L = 49 gets 2, L = 128 and more 4.
unsigned reductionInterleave(std::int64_t length)
{
    unsigned best = 1;
    std::int64_t bestSteps = length / 8 + length % 8;
    for (unsigned ic : {2u, 4u}) {
        const std::int64_t block = 8 * static_cast<std::int64_t>(ic), steps = length / block + length % block;
        if (steps < bestSteps) {
            best = ic;
            bestSteps = steps;
        }
    }
    return best;
}

// Emits the row kernel `name` for `p` into `m` (see jit.h, RowProgram):
//   void rows(float *noalias out, const float *const *ins, i64 begin, i64 end)
//   for r in [begin, end): for each pass: one loop over the row's L elements
// (constant trip count), the reduction's accumulator a float carried by the
// loop whose combining instruction has `reassoc` (fadd, fmul) or is
// llvm.maxnum/minnum, so the loop vectoriser keeps partial sums per lane.
void emitRowFunction(llvm::Module &m, const std::string &name, const RowProgram &p, llvm::TargetMachine &tm)
{
    using Kind = RowProgram::Kind;
    llvm::LLVMContext &ctx = m.getContext();
    llvm::IRBuilder<> b(ctx);
    llvm::Type *i64 = b.getInt64Ty(), *f = b.getFloatTy();
    llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
    auto *fnType = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64, i64}, false);
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    fn->addFnAttr("target-cpu", tm.getTargetCPU());
    fn->addFnAttr("target-features", tm.getTargetFeatureString());
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value *out = fn->getArg(0), *ins = fn->getArg(1), *begin = fn->getArg(2), *end = fn->getArg(3);

    auto *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    auto *body = llvm::BasicBlock::Create(ctx, "rows", fn);
    auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
    b.SetInsertPoint(entry);
    const std::size_t n = p.rowStrides.size();
    std::vector<llvm::Value *> base;
    for (std::size_t k = 0; k < n; ++k)
        base.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, ins, k), "in" + std::to_string(k)));
    b.CreateCondBr(b.CreateICmpSLT(begin, end), body, done);
    b.SetInsertPoint(body);

    const bool stores = !p.passes.empty() && p.passes.back().kind == Kind::Store;
    emitLoop(b, begin, end, nullptr, [&](llvm::Value *r, llvm::Value *) {
        std::vector<llvm::Value *> rowBase; // each operand's row
        for (std::size_t k = 0; k < n; ++k)
            rowBase.push_back(
                b.CreateInBoundsGEP(f, base[k], b.CreateMul(r, b.getInt64(p.rowStrides[k]), "", true, true)));
        std::vector<llvm::Value *> scalars; // constants, then the passes' scalars
        for (float c : p.constants)
            scalars.push_back(llvm::ConstantFP::get(f, c));
        auto outAt = [&](llvm::Value *i) {
            return b.CreateAdd(b.CreateMul(r, b.getInt64(p.length), "", true, true), i, "", true, true);
        };
        // The values at element i: operands, constants, scalars, then `instrs`; the last is returned.
        auto element = [&](llvm::Value *i, const std::vector<EwInstr> &instrs) {
            std::vector<llvm::Value *> v;
            for (std::size_t k = 0; k < n; ++k) {
                llvm::Value *at =
                    p.elementStrides[k] == 0
                        ? rowBase[k]
                        : b.CreateInBoundsGEP(f, rowBase[k],
                                              b.CreateMul(i, b.getInt64(p.elementStrides[k]), "", true, true));
                v.push_back(b.CreateLoad(f, at));
            }
            if (p.readsOut)
                v.push_back(b.CreateLoad(f, b.CreateInBoundsGEP(f, out, outAt(i))));
            v.insert(v.end(), scalars.begin(), scalars.end());
            for (const EwInstr &in : instrs)
                v.push_back(emitInstr(b, m, in, v));
            return instrs.empty() ? v.front() : v.back();
        };
        for (const RowProgram::Pass &pass : p.passes) {
            if (pass.kind == Kind::Store) {
                emitLoop(b, b.getInt64(0), b.getInt64(p.length), nullptr, [&](llvm::Value *i, llvm::Value *) {
                    b.CreateStore(element(i, pass.instrs), b.CreateInBoundsGEP(f, out, outAt(i)));
                    return nullptr;
                });
                continue;
            }
            const double inf = std::numeric_limits<double>::infinity();
            const double init = pass.kind == Kind::Sum    ? 0.0
                                : pass.kind == Kind::Prod ? 1.0
                                : pass.kind == Kind::Max  ? -inf
                                                          : inf;
            llvm::Value *reduced = emitLoop(
                b, b.getInt64(0), b.getInt64(p.length), llvm::ConstantFP::get(f, init),
                [&](llvm::Value *i, llvm::Value *acc) -> llvm::Value * {
                    llvm::Value *x = element(i, pass.instrs);
                    if (pass.stores)
                        b.CreateStore(x, b.CreateInBoundsGEP(f, out, outAt(i)));
                    llvm::FastMathFlags fmf;
                    fmf.setAllowReassoc();
                    if (pass.kind == Kind::Max || pass.kind == Kind::Min) {
                        fmf.setNoNaNs(); // what makes maxnum/minnum a vector reduction
                        fmf.setNoSignedZeros();
                    }
                    llvm::IRBuilder<>::FastMathFlagGuard guard(b);
                    b.setFastMathFlags(fmf);
                    switch (pass.kind) {
                    case Kind::Sum: return b.CreateFAdd(acc, x);
                    case Kind::Prod: return b.CreateFMul(acc, x);
                    case Kind::Max: return b.CreateMaxNum(acc, x);
                    default: return b.CreateMinNum(acc, x);
                    }
                },
                reductionInterleave(p.length));
            // The finish instructions see no operands (never read there).
            std::vector<llvm::Value *> v(n + (p.readsOut ? 1 : 0), nullptr);
            v.insert(v.end(), scalars.begin(), scalars.end());
            v.push_back(reduced);
            for (const EwInstr &in : pass.finish)
                v.push_back(emitInstr(b, m, in, v));
            scalars.push_back(v.back());
        }
        if (!stores && !scalars.empty())
            b.CreateStore(scalars.back(), b.CreateInBoundsGEP(f, out, r));
        return nullptr;
    });
    b.CreateBr(done);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
}

// The side of a transpose's blocks, in elements: 16 × 16 four-byte
// elements are 16 source and 16 destination lines of 64 bytes, 2 KB in all.
constexpr std::int64_t kMoveBlock = 16;

// Emits the data movement kernel `name` for `p` into `m` (see above).
void emitMoveFunction(llvm::Module &m, const std::string &name, const MoveProgram &p, llvm::TargetMachine &tm)
{
    llvm::LLVMContext &ctx = m.getContext();
    llvm::IRBuilder<> b(ctx);
    llvm::Type *e = b.getIntNTy(static_cast<unsigned>(8 * p.elementBytes));
    llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
    auto *fnType = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr}, false);
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    fn->addParamAttr(1, llvm::Attribute::NoAlias);
    fn->addFnAttr("target-cpu", tm.getTargetCPU());
    fn->addFnAttr("target-features", tm.getTargetFeatureString());
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value *out = fn->getArg(0), *in = fn->getArg(1);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));

    // The loops, outermost first: the dims in order, but a transpose's c
    // and o as a block loop each, then c and o inside the block.
    const std::size_t rank = p.dims.size();
    const std::size_t o = rank - 1;
    std::size_t c = rank;
    if (rank >= 2 && p.outStrides[o] == 1 && p.inStrides[o] != 1 && p.dims[o] >= kMoveBlock)
        for (std::size_t d = 0; d < o; ++d)
            if (p.inStrides[d] == 1 && p.dims[d] >= kMoveBlock)
                c = d;
    struct Loop {
        std::size_t dim;
        enum { Whole, Blocks, InBlock } kind;
    };
    std::vector<Loop> loops;
    for (std::size_t d = 0; d < rank; ++d)
        if (c == rank || (d != c && d != o))
            loops.push_back({d, Loop::Whole});
    if (c != rank)
        loops.insert(loops.end(), {{c, Loop::Blocks}, {o, Loop::Blocks}, {c, Loop::InBlock}, {o, Loop::InBlock}});

    std::vector<llvm::Value *> iv(rank), blockStart(rank);
    std::function<void(std::size_t)> nest = [&](std::size_t level) {
        if (level == loops.size()) {
            llvm::Value *src = b.getInt64(0), *dst = b.getInt64(0);
            for (std::size_t d = 0; d < rank; ++d) {
                if (p.inStrides[d] != 0)
                    src = b.CreateAdd(src, b.CreateMul(iv[d], b.getInt64(p.inStrides[d]), "", false, true), "", false,
                                      true);
                dst = b.CreateAdd(dst, b.CreateMul(iv[d], b.getInt64(p.outStrides[d]), "", true, true), "", true, true);
            }
            llvm::Value *v = b.CreateLoad(e, b.CreateGEP(e, in, src));
            b.CreateStore(v, b.CreateInBoundsGEP(e, out, dst));
            return;
        }
        const Loop &l = loops[level];
        const std::int64_t n = p.dims[l.dim];
        llvm::Value *begin = b.getInt64(0), *end = b.getInt64(n);
        if (l.kind == Loop::Blocks) {
            end = b.getInt64((n + kMoveBlock - 1) / kMoveBlock);
        } else if (l.kind == Loop::InBlock) {
            begin = blockStart[l.dim];
            llvm::Value *full = b.CreateAdd(begin, b.getInt64(kMoveBlock), "", true, true);
            end = b.CreateSelect(b.CreateICmpSLT(full, b.getInt64(n)), full, b.getInt64(n));
        }
        emitLoop(b, begin, end, nullptr, [&](llvm::Value *i, llvm::Value *) -> llvm::Value * {
            if (l.kind == Loop::Blocks)
                blockStart[l.dim] = b.CreateMul(i, b.getInt64(kMoveBlock), "", true, true);
            else
                iv[l.dim] = i;
            nest(level + 1);
            return nullptr;
        });
    };
    nest(0);
    b.CreateRetVoid();
}

void optimise(llvm::Module &m, llvm::TargetMachine &tm)
{
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(&tm);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

} // namespace

// The engine: LLVM's native target, the host's target machine and an LLJIT
// whose main dylib resolves libm symbols in the host process.
class LlvmJitEngine final : public JitEngine
{
public:
    LlvmJitEngine()
    {
        static const bool initialised = [] {
            llvm::InitializeNativeTarget();
            llvm::InitializeNativeTargetAsmPrinter();
            return true;
        }();
        (void)initialised;
        auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!jtmb) {
            m_error = errorText(jtmb.takeError());
            return;
        }
        jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
        auto tm = jtmb->createTargetMachine();
        if (!tm) {
            m_error = errorText(tm.takeError());
            return;
        }
        m_tm = std::move(*tm);
        auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
        if (!jit) {
            m_error = errorText(jit.takeError());
            return;
        }
        m_jit = std::move(*jit);
        auto gen =
            llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(m_jit->getDataLayout().getGlobalPrefix());
        if (!gen) {
            m_error = errorText(gen.takeError());
            m_jit.reset();
            return;
        }
        m_jit->getMainJITDylib().addGenerator(std::move(*gen));
    }

    const std::string &error() const { return m_error; }

    EwFunction compile(const EwProgram &p, const std::string &name, std::string &error) override
    {
        return reinterpret_cast<EwFunction>(
            build(name, error, [&](llvm::Module &m) { emitFunction(m, name, p, *m_tm); }));
    }

    RowFunction compileRows(const RowProgram &p, const std::string &name, std::string &error) override
    {
        return reinterpret_cast<RowFunction>(
            build(name, error, [&](llvm::Module &m) { emitRowFunction(m, name, p, *m_tm); }));
    }

    MoveFunction compileMove(const MoveProgram &p, const std::string &name, std::string &error) override
    {
        return reinterpret_cast<MoveFunction>(
            build(name, error, [&](llvm::Module &m) { emitMoveFunction(m, name, p, *m_tm); }));
    }

    bool ok() const { return m_jit != nullptr; }

private:
    // A module with the function `name` that `emit` generates, verified,
    // optimised and added to the JIT: its address, or null and `error` set.
    void *build(const std::string &name, std::string &error, const std::function<void(llvm::Module &)> &emit)
    {
        auto ctx = std::make_unique<llvm::LLVMContext>();
        auto m = std::make_unique<llvm::Module>("tessera_ew", *ctx);
        m->setDataLayout(m_tm->createDataLayout());
        m->setTargetTriple(m_tm->getTargetTriple().str());
        emit(*m);
        std::string problems;
        llvm::raw_string_ostream os(problems);
        if (llvm::verifyModule(*m, &os)) {
            error = "generated kernel is invalid: " + os.str();
            return nullptr;
        }
        optimise(*m, *m_tm);
        if (std::getenv("TESSERA_CPU_DUMP_IR"))
            m->print(llvm::errs(), nullptr);
        if (llvm::Error e = m_jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
            error = "the LLVM JIT rejected a kernel: " + errorText(std::move(e));
            return nullptr;
        }
        auto sym = m_jit->lookup(name);
        if (!sym) {
            error = "the LLVM JIT lost a kernel: " + errorText(sym.takeError());
            return nullptr;
        }
        return sym->toPtr<void *>();
    }

    std::unique_ptr<llvm::orc::LLJIT> m_jit;
    std::unique_ptr<llvm::TargetMachine> m_tm;
    std::string m_error;
};

} // namespace tessera::cpu

extern "C" tessera::cpu::JitEngine *tesseraCpuJitCreate(std::string *error)
{
    auto engine = std::make_unique<tessera::cpu::LlvmJitEngine>();
    if (!engine->ok()) {
        *error = engine->error();
        return nullptr;
    }
    return engine.release();
}
