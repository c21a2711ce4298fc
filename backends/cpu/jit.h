// Element-wise chains compiled by LLVM 16's ORC JIT (internal to backends/cpu).
//
// An EwProgram is a fused kernel's element-wise chain in a plain form: the
// output's dims (adjacent dims merged where every operand allows), per operand
// its element strides over those dims (0 = broadcast), and a straight-line
// list of instructions over the loaded operand values. jit.cpp turns it into
// a loop nest whose innermost loop LLVM vectorises for the host CPU. The
// JitCache keys compiled functions by the program's text (its content), so
// the same chain in another plan — or after an override changed some other
// kernel — is not compiled again. LLVM headers stay inside jit.cpp.
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
        // binary (a, b)
        Add,
        Sub,
        Mul,
        Div,
        Max,
        Min,
        Pow,
        // ternary (a * b + c)
        MulAdd,
    };
    Op op = Op::Add;
    int a = 0, b = 0, c = 0;   // value numbers: operands 0..n-1, then instructions in order
    float alpha = 0, beta = 0; // LeakyRelu slope, Clip bounds
};

struct EwProgram {
    std::vector<std::int64_t> dims;                 // output dims (collapsed)
    std::vector<std::vector<std::int64_t>> strides; // per operand, per dim
    std::vector<EwInstr> instrs;                    // the last one is stored
    std::string key() const;                        // the content: dims, strides, instructions
};

// out[i] = program(ins...)(i), for the whole output.
using EwFunction = void (*)(float *out, const float *const *ins);

class JitCache
{
public:
    JitCache();
    ~JitCache();
    JitCache(const JitCache &) = delete;
    JitCache &operator=(const JitCache &) = delete;

    // The compiled function of `p` (from the cache when its key was seen).
    Expected<EwFunction> get(const EwProgram &p);
    int compiled() const;        // functions generated since construction
    int hits() const;            // get() calls answered from the cache
    std::string hostCpu() const; // e.g. "znver3 (avx2, fma)"

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tessera::cpu
