// Element-wise chains compiled by LLVM 16's ORC JIT (internal to backends/cpu).
//
// An EwProgram is a fused kernel's element-wise chain in a plain form: the
// output's dims (adjacent dims merged where every operand allows), per operand
// its element strides over those dims (0 = broadcast), and a straight-line
// list of instructions over the loaded operand values. jit.cpp turns it into
// a loop nest whose innermost loop LLVM vectorises for the host CPU. The
// JitCache keys compiled functions by the program's text (its content), so
// the same chain in another plan — or after an override changed some other
// kernel — is not compiled again. libLLVM is loaded (dlopen of the module
// libtessera_cpu_jit.so, jit.cpp) and set up by the first get(), never by the
// constructor: the backend is built at registration, by every CLI start, and
// linking libLLVM alone costs ~90 ms of CPU per process start (BENCHMARKS.md).
// LLVM headers stay inside jit.cpp.
//
// A RowProgram is a row kernel (softmax, layer normalisation, reductions over
// trailing axes): the input seen as [rows, L] with the normalised or reduced
// axis innermost and contiguous, a few passes over each row — reductions of
// an expression of the row's elements and earlier passes' per-row scalars —
// then a store pass of an expression per element, or of the last scalar per
// row. Its reductions are vectorised: the accumulating fadd/fmul carry the
// `reassoc` fast-math flag and max/min are llvm.maxnum/minnum with `nnan nsz`,
// so LLVM keeps one partial accumulator per vector lane and interleaved copy
// (8 lanes × 1, 2 or 4 copies on x86-64, by the row length: jit.cpp
// reductionInterleave) and adds them after the loop: a row is summed in a
// different order than sequentially (strided partial sums, usually more
// accurate for long rows: relative L2 under 1e-6 against the reference's
// double sums for L = 50176), so results differ from a sequential float sum
// in the last bits; a NaN in a max/min row gives an unspecified result (the
// reference propagates it). Exp, Log, Tanh and Erf, in row kernels and
// element-wise chains alike, are inline arithmetic (jit.cpp emitExp, emitLog,
// ~1 ulp; emitTanh, emitErf) so that their loops vectorise. Nothing else is
// reassociated.
//
// A MoveProgram is data movement (datamove.cpp: Transpose, Slice, the parts
// of Concat and Split, Pad's fill and interior): a box of `dims` walked with
// one element stride per dim in the source and one in the destination,
// moving elements as integers of `elementBytes` (the bits of any type of
// that width, NaN payloads included). A source stride of 0 repeats one
// element (a fill). jit.cpp emits it as a loop nest with constant trip
// counts; a transpose (the destination's innermost dim strided in the
// source, another dim contiguous there) is walked in square blocks of both
// dims so that the lines of either side stay in cache.
#pragma once

#include "core/support/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::cpu {

struct EwInstr {
    enum class Op : std::uint8_t {
        // unary (a)
        Relu,
        LeakyRelu,
        Sigmoid,
        Tanh,
        Exp,
        Log,
        Sqrt,
        Neg,
        Abs,
        Reciprocal,
        Erf,
        Floor,
        Ceil,
        Clip,
        HardSigmoid,     // clamp(alpha·a + beta, 0, 1)
        HardSwish,       // a · clamp(a / 6 + 1/2, 0, 1)
        Elu,             // a < 0 ? alpha·(exp(a) - 1) : a
        Selu,            // beta · (a ≤ 0 ? alpha·(exp(a) - 1) : a)   (beta: gamma)
        Celu,            // max(0, a) + min(0, alpha·(exp(a / alpha) - 1))
        ThresholdedRelu, // a > alpha ? a : 0
        Softplus,        // log(1 + exp(a))
        Softsign,        // a / (1 + |a|)
        Shrink,          // a < -alpha ? a + beta : a > alpha ? a - beta : 0   (alpha: lambd, beta: bias)
        Sign,
        Round, // to nearest, ties to even
        // binary (a, b)
        Add,
        Sub,
        Mul,
        Div,
        Max,
        Min,
        Pow,
        PRelu, // a < 0 ? a · b : a
        // ternary (a * b + c)
        MulAdd,
    };
    Op op = Op::Add;
    int a = 0, b = 0, c = 0;   // value numbers: operands 0..n-1, then instructions in order
    float alpha = 0, beta = 0; // LeakyRelu slope, Clip bounds, HardSigmoid slope and offset, ... (above)
};

struct EwProgram {
    std::vector<std::int64_t> dims;                 // output dims (collapsed)
    std::vector<std::vector<std::int64_t>> strides; // per operand, per dim
    std::vector<EwInstr> instrs;                    // the last one is stored
    std::string key() const;                        // the content: dims, strides, instructions
};

// out[i] = program(ins...)(i), for the whole output.
using EwFunction = void (*)(float *out, const float *const *ins);

// A row kernel (see above). Values inside a pass are numbered: the operands'
// elements at the current position (0..n-1), `constants` (n..n+c-1), the
// scalars of the earlier passes (n+c..), then the pass's instructions. A
// reduction pass reduces its last instruction's value (operand 0, the input,
// when it has none) over the row; its `finish` instructions then run once per
// row with the reduction's result as value n+c+p (p: the pass's index) and
// the operands unset, and the last of them (the result when there are none)
// is the pass's scalar. A Store pass, only ever the last, stores its last
// value per element at out[row·L + i]; without one, the last pass's scalar
// is stored at out[row]. A reduction pass that `stores` writes its reduced
// value per element there too, for a later pass to read back (`readsOut`:
// softmax stores exp(x - max) while summing it, then rescales).
struct RowProgram {
    enum class Kind : std::uint8_t { Sum, Max, Min, Prod, Store };
    struct Pass {
        Kind kind = Kind::Sum;
        std::vector<EwInstr> instrs; // per element
        std::vector<EwInstr> finish; // per row, after a reduction
        bool stores = false;         // a reduction that also stores its reduced value per element
    };
    std::int64_t length = 1;                              // L, the elements of a row
    std::vector<std::int64_t> rowStrides, elementStrides; // per operand (element units)
    bool readsOut = false; // the output's element (out[row·L + i]) is one more operand, after the others
    std::vector<float> constants;
    std::vector<Pass> passes;
    std::string key() const; // the content: L, strides, constants, passes
};

// Data movement (see above): dst[Σ i_d·outStrides[d]] = src[Σ i_d·inStrides[d]].
struct MoveProgram {
    int elementBytes = 4;                 // 1, 2, 4 or 8
    std::vector<std::int64_t> dims;       // the box walked (no zero extent)
    std::vector<std::int64_t> inStrides;  // per dim, in elements (0: one element repeated; < 0: backwards)
    std::vector<std::int64_t> outStrides; // per dim, in elements
    std::string key() const;              // the content
};
using MoveFunction = void (*)(void *out, const void *in);

// Computes rows [rowBegin, rowEnd) of a row kernel (rows split across threads by the caller).
using RowFunction = void (*)(float *out, const float *const *ins, std::int64_t rowBegin, std::int64_t rowEnd);

// The LLVM side (jit.cpp, built as the shared module libtessera_cpu_jit.so,
// the only code linking libLLVM): one engine per JitCache, created by the
// module's entry point tesseraCpuJitCreate (null and `*error` set when the
// host's target cannot be set up). compile() returns null and sets `error`
// on failure. Not thread-safe: JitCache serialises the calls.
class JitEngine
{
public:
    virtual ~JitEngine() = default;
    virtual EwFunction compile(const EwProgram &p, const std::string &name, std::string &error) = 0;
    virtual RowFunction compileRows(const RowProgram &p, const std::string &name, std::string &error) = 0;
    virtual MoveFunction compileMove(const MoveProgram &p, const std::string &name, std::string &error) = 0;
};
using JitCreateFn = JitEngine *(*)(std::string *error);
constexpr const char *kJitEntryPoint = "tesseraCpuJitCreate";

class JitCache
{
public:
    JitCache();
    ~JitCache();
    JitCache(const JitCache &) = delete;
    JitCache &operator=(const JitCache &) = delete;

    // The compiled function of `p` (from the cache when its key was seen).
    // The first call loads the LLVM module; Unavailable when it cannot.
    Expected<EwFunction> get(const EwProgram &p);
    Expected<RowFunction> get(const RowProgram &p);   // the same for a row kernel (its own keys)
    Expected<MoveFunction> get(const MoveProgram &p); // and for data movement
    int compiled() const;                             // functions generated since construction
    int hits() const;                                 // get() calls answered from the cache
    bool started() const;                             // whether the LLVM module was loaded (the first get() does it)
    static std::string hostCpu();                     // e.g. "x86-64 (avx2, fma)", from CPUID; loads nothing

    struct Impl; // jitcache.cpp

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace tessera::cpu
