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
        HardSigmoid, // clamp(alpha·a + beta, 0, 1)
        HardSwish,   // a · clamp(a / 6 + 1/2, 0, 1)
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
    float alpha = 0, beta = 0; // LeakyRelu slope, Clip bounds, HardSigmoid slope and offset
};

struct EwProgram {
    std::vector<std::int64_t> dims;                 // output dims (collapsed)
    std::vector<std::vector<std::int64_t>> strides; // per operand, per dim
    std::vector<EwInstr> instrs;                    // the last one is stored
    std::string key() const;                        // the content: dims, strides, instructions
};

// out[i] = program(ins...)(i), for the whole output.
using EwFunction = void (*)(float *out, const float *const *ins);

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
    int compiled() const;         // functions generated since construction
    int hits() const;             // get() calls answered from the cache
    bool started() const;         // whether the LLVM module was loaded (the first get() does it)
    static std::string hostCpu(); // e.g. "x86-64 (avx2, fma)", from CPUID; loads nothing

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace tessera::cpu
