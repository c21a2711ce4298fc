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
    std::unordered_map<std::string, EwFunction> cache;
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

Expected<EwFunction> JitCache::get(const EwProgram &p)
{
    std::lock_guard lock(m_impl->mutex);
    const std::string key = p.key();
    if (auto it = m_impl->cache.find(key); it != m_impl->cache.end()) {
        ++m_impl->hits;
        return it->second;
    }
    m_impl->start();
    if (!m_impl->engine)
        return Status::error(ErrorCode::Unavailable, "the LLVM JIT is unavailable: " + m_impl->error);
    std::string error;
    EwFunction fn = m_impl->engine->compile(p, "tessera_ew_" + std::to_string(m_impl->serial++), error);
    if (!fn)
        return Status::error(ErrorCode::Internal, error);
    ++m_impl->compiled;
    m_impl->cache.emplace(key, fn);
    return fn;
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
