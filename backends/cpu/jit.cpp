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
// 0 (broadcast). Transcendentals without an LLVM intrinsic (tanh, erf) call
// the C library's single-precision functions, found in the host process.
#include "backends/cpu/jit.h"

#include <cstdlib>
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

llvm::Value *emitInstr(llvm::IRBuilder<> &b, llvm::Module &m, const EwInstr &in, const std::vector<llvm::Value *> &v)
{
    llvm::Type *f = b.getFloatTy();
    auto intrinsic = [&](llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
        return b.CreateCall(llvm::Intrinsic::getDeclaration(&m, id, {f}), args);
    };
    auto libm = [&](const char *name, llvm::Value *x) {
        llvm::FunctionCallee fn = m.getOrInsertFunction(name, llvm::FunctionType::get(f, {f}, false));
        return b.CreateCall(fn, {x});
    };
    llvm::Value *a = v[static_cast<std::size_t>(in.a)];
    llvm::Value *zero = llvm::ConstantFP::get(f, 0.0), *one = llvm::ConstantFP::get(f, 1.0);
    switch (in.op) {
    case Op::Relu: return b.CreateSelect(b.CreateFCmpOLT(a, zero), zero, a);
    case Op::LeakyRelu:
        return b.CreateSelect(b.CreateFCmpOLT(a, zero), b.CreateFMul(a, llvm::ConstantFP::get(f, in.alpha)), a);
    case Op::Sigmoid: return b.CreateFDiv(one, b.CreateFAdd(one, intrinsic(llvm::Intrinsic::exp, {b.CreateFNeg(a)})));
    case Op::Tanh: return libm("tanhf", a);
    case Op::Exp: return intrinsic(llvm::Intrinsic::exp, {a});
    case Op::Log: return intrinsic(llvm::Intrinsic::log, {a});
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, {a});
    case Op::Neg: return b.CreateFNeg(a);
    case Op::Abs: return intrinsic(llvm::Intrinsic::fabs, {a});
    case Op::Reciprocal: return b.CreateFDiv(one, a);
    case Op::Erf: return libm("erff", a);
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
            if (strides[d] != 0)
                o = b.CreateAdd(o, b.CreateMul(iv[d], b.getInt64(strides[d])), "", true, true);
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
        auto ctx = std::make_unique<llvm::LLVMContext>();
        auto m = std::make_unique<llvm::Module>("tessera_ew", *ctx);
        m->setDataLayout(m_tm->createDataLayout());
        m->setTargetTriple(m_tm->getTargetTriple().str());
        emitFunction(*m, name, p, *m_tm);
        std::string problems;
        llvm::raw_string_ostream os(problems);
        if (llvm::verifyModule(*m, &os)) {
            error = "generated element-wise kernel is invalid: " + os.str();
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
        return sym->toPtr<EwFunction>();
    }

    bool ok() const { return m_jit != nullptr; }

private:
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
