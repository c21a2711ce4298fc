// The JIT's kernel cache and the lazy loading of the LLVM module (see jit.h).
//
// The LLVM side lives in the shared module libtessera_cpu_jit.so (jit.cpp);
// the first get() dlopen()s it and creates its engine, so constructing the
// backend (at registration: every `tessera-cli` and `tessera` start) neither
// loads nor relocates libLLVM. The module is looked for, in order, at
// $TESSERA_CPU_JIT (only there when it is set), next to the executable, in <exe>/../lib/tessera/, and
// where the build put it (TESSERA_CPU_JIT_BUILD_PATH). When none loads, get()
// answers Unavailable with the reason and the backend runs element-wise ops on
// the reference kernels. Assumes POSIX dlopen.
#include "backends/cpu/jit.h"

#include <dlfcn.h>
#include <filesystem>
#include <mutex>
#include <unordered_map>

namespace tessera::cpu {

struct JitCache::Impl {
    std::unique_ptr<JitEngine> engine;
    std::string error; // why the JIT is unavailable
    bool started = false;
    struct Compiled {
        EwFunction ew = nullptr;
        RowFunction row = nullptr;
        MoveFunction move = nullptr;
    };
    // Element-wise keys, "row|" + a row kernel's, "move|" + a data movement's.
    std::unordered_map<std::string, Compiled> cache;
    int compiled = 0, hits = 0, serial = 0;
    mutable std::mutex mutex;

    // Loads the module and creates the engine once; called with the mutex held.
    void start()
    {
        if (started)
            return;
        started = true;
        std::vector<std::string> candidates;
        std::error_code ec;
        const char *env = std::getenv("TESSERA_CPU_JIT");
        const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (env && *env) {
            candidates.emplace_back(env); // the only place looked at when set
        } else if (!ec) {
            candidates.push_back((exe.parent_path() / "libtessera_cpu_jit.so").string());
            candidates.push_back((exe.parent_path() / ".." / "lib" / "tessera" / "libtessera_cpu_jit.so").string());
        }
#ifdef TESSERA_CPU_JIT_BUILD_PATH
        if (!env || !*env)
            candidates.emplace_back(TESSERA_CPU_JIT_BUILD_PATH);
#endif
        void *handle = nullptr;
        std::string tried;
        for (const std::string &path : candidates) {
            if (!std::filesystem::exists(path, ec))
                continue;
            handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle)
                break;
            tried += (tried.empty() ? "" : "; ") + std::string(::dlerror());
        }
        if (!handle) {
            error = "libtessera_cpu_jit.so not found or not loadable (looked at " + std::to_string(candidates.size()) +
                    " place(s), first " + (candidates.empty() ? "none" : candidates.front()) + ")" +
                    (tried.empty() ? "" : ": " + tried);
            return;
        }
        // The handle is never closed: compiled kernels live in the module's JIT.
        auto create = reinterpret_cast<JitCreateFn>(::dlsym(handle, kJitEntryPoint));
        if (!create) {
            error = std::string("libtessera_cpu_jit.so has no ") + kJitEntryPoint;
            return;
        }
        engine.reset(create(&error));
    }
};

JitCache::JitCache() : m_impl(std::make_unique<Impl>()) {}

JitCache::~JitCache() = default;

namespace {

// The function of `key` from the cache, or compiled by `compile(engine, name, error)`.
template <class Fn, class Member, class Compile>
Expected<Fn> cachedOrCompiled(JitCache::Impl &impl, const std::string &key, Member member, Compile compile)
{
    std::lock_guard lock(impl.mutex);
    if (auto it = impl.cache.find(key); it != impl.cache.end()) {
        ++impl.hits;
        return it->second.*member;
    }
    impl.start();
    if (!impl.engine)
        return Status::error(ErrorCode::Unavailable, "the LLVM JIT is unavailable: " + impl.error);
    std::string error;
    Fn fn = compile(*impl.engine, "tessera_ew_" + std::to_string(impl.serial++), error);
    if (!fn)
        return Status::error(ErrorCode::Internal, error);
    ++impl.compiled;
    impl.cache[key].*member = fn;
    return fn;
}

} // namespace

Expected<EwFunction> JitCache::get(const EwProgram &p)
{
    return cachedOrCompiled<EwFunction>(
        *m_impl, p.key(), &Impl::Compiled::ew,
        [&](JitEngine &e, const std::string &name, std::string &error) { return e.compile(p, name, error); });
}

Expected<RowFunction> JitCache::get(const RowProgram &p)
{
    return cachedOrCompiled<RowFunction>(
        *m_impl, "row|" + p.key(), &Impl::Compiled::row,
        [&](JitEngine &e, const std::string &name, std::string &error) { return e.compileRows(p, name, error); });
}

Expected<MoveFunction> JitCache::get(const MoveProgram &p)
{
    return cachedOrCompiled<MoveFunction>(
        *m_impl, "move|" + p.key(), &Impl::Compiled::move,
        [&](JitEngine &e, const std::string &name, std::string &error) { return e.compileMove(p, name, error); });
}

int JitCache::compiled() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->compiled;
}

int JitCache::hits() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->hits;
}

bool JitCache::started() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->started;
}

std::string JitCache::hostCpu()
{
    std::string isa;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const std::pair<const char *, bool> features[] = {{"avx512f", __builtin_cpu_supports("avx512f")},
                                                      {"avx2", __builtin_cpu_supports("avx2")},
                                                      {"fma", __builtin_cpu_supports("fma")},
                                                      {"avx", __builtin_cpu_supports("avx")},
                                                      {"sse4.2", __builtin_cpu_supports("sse4.2")}};
    for (const auto &[name, has] : features)
        if (has)
            isa += (isa.empty() ? "" : ", ") + std::string(name);
    return "x86-64" + (isa.empty() ? "" : " (" + isa + ")");
#else
    return "host";
#endif
}

} // namespace tessera::cpu
