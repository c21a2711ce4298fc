// S6: libonnx's checker and shape inference. libonnx reports problems by
// throwing, and libonnx 1.12's shape inference also crashes on some malformed
// models (a ConvTranspose weight of lower rank than its input reads past the
// end of a dims list). So by default both run in another process (see "Where
// they run" below): its exceptions become messages, its death by a signal or
// a timeout becomes a Status, and only the inferred value infos travel back
// through a pipe. The node named in libonnx's message goes into the Location.
//
// Three accommodations keep valid-but-unusual models importable:
//  - default-domain ops with no ONNX schema (made-up or newer ops) would stop
//    the checker; they move to a private domain first, so the checker and
//    inference skip them and they import as opaque nodes (S3 marked them);
//    so do ops whose libonnx inference is wrong (wrongInference: STFT), which
//    S3 did not mark, so Tessera's own inference types them;
//  - an ir_version newer than libonnx knows is checked as the newest it knows,
//    with a warning;
//  - the checker stats external data files relative to the process's working
//    directory (check_model(ModelProto) has no model folder), so locations are
//    made absolute while it runs; S4 has already checked they stay inside the
//    model's folder, and S8 reads the original relative ones again.
// Inference runs non-strict (a node it cannot infer stays unknown, S7 reports
// it if it matters) with data propagation, so Shape→Gather→Concat chains give
// static shapes.
//
// Where they run: in the helper executable tessera-onnx-check (app/onnxcheck),
// spawned fresh with posix_spawn — the model through a memory file as its
// standard input, initializers over 64 KiB replaced by graph inputs of the
// same type and shape (values the checks do not need; Tessera's S4 checked
// their sizes), the progress tags and the result on its standard output
// (libonnx_run.h). A fresh process holds no lock: a child *forked* from this
// multi-threaded program may find one taken forever — glibc's malloc guards
// its own around fork(), GCC 12's AddressSanitizer allocator does not, and
// the workbench tests under the asan preset hung about one load in three
// (docs/fuzzing.md). Where the helper is not found (a program built without
// it), the checks run in a forked child as before: fine with glibc's malloc,
// the registry initialised in the parent first (hideUnknownOps).
#include "core/onnx/internal.h"
#include "core/onnx/libonnx_run.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <set>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace tessera::onnximport {

namespace {

constexpr const char *kUnknownDomain = "ai.tessera.unknown";

// Ops whose libonnx 1.12 shape inference contradicts the ONNX spec: STFT
// ignores onesided (9 bins of a 16-sample frame become 16) and refuses the
// model's correct declaration. They are hidden like unknown ops; ops::inferShapes
// types their outputs instead (S9 F1, or S10 against a declared shape).
bool wrongInference(const std::string &op)
{
    return op == "STFT";
}

void hideUnknownOps(::onnx::ModelProto &model)
{
    int opset = 0;
    for (const auto &op : model.opset_import())
        if (normalDomain(op.domain()).empty())
            opset = static_cast<int>(op.version());
    bool any = false;
    for (auto &n : *model.mutable_graph()->mutable_node())
        if (normalDomain(n.domain()).empty() &&
            (!::onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "") || wrongInference(n.op_type()))) {
            n.set_domain(kUnknownDomain);
            any = true;
        }
    if (any) {
        auto *op = model.add_opset_import();
        op->set_domain(kUnknownDomain);
        op->set_version(1);
    }
}

// Rewrites every external data location to its absolute path until destroyed.
class AbsoluteLocations
{
public:
    AbsoluteLocations(::onnx::GraphProto &g, const std::filesystem::path &modelDir)
    {
        auto pin = [&](::onnx::TensorProto &t) {
            if (t.data_location() != ::onnx::TensorProto::EXTERNAL || modelDir.empty())
                return;
            for (auto &e : *t.mutable_external_data())
                if (e.key() == "location") {
                    m_saved.emplace_back(&e, e.value());
                    e.set_value((modelDir / e.value()).string());
                }
        };
        for (auto &t : *g.mutable_initializer())
            pin(t);
        for (auto &n : *g.mutable_node())
            for (auto &a : *n.mutable_attribute())
                if (a.has_t())
                    pin(*a.mutable_t());
    }
    ~AbsoluteLocations()
    {
        for (auto &[entry, value] : m_saved)
            entry->set_value(std::move(value));
    }
    AbsoluteLocations(const AbsoluteLocations &) = delete;
    AbsoluteLocations &operator=(const AbsoluteLocations &) = delete;

private:
    std::vector<std::pair<::onnx::StringStringEntryProto *, std::string>> m_saved;
};

// libonnx's messages span lines ("...\n\n==> Context: Bad node spec for node.
// Name: relu0 OpType: Relu"); the Status takes the first non-empty line and the
// node name.
Status fromException(const char *what, std::string_view stage, const ImportContext &ctx)
{
    const std::string text(what ? what : "unknown error");
    const std::size_t first = std::min(text.find_first_not_of("\n "), text.size());
    const std::string line = text.substr(first, text.find('\n', first) - first);
    std::string node;
    for (const auto &[open, close] : {std::pair{"Name: ", " OpType"}, std::pair{"node name: ", ")"}})
        if (auto b = text.find(open); b != std::string::npos) {
            b += std::string_view(open).size();
            node = text.substr(b, std::min(text.find(close, b), text.find('\n', b)) - b);
            break;
        }
    return Status::invalid(std::string(stage) + ": " + line, ctx.at(node));
}

// The helper executable (app/onnxcheck): $TESSERA_ONNX_CHECK when set (the
// only place looked at), else beside the running program, in ../lib/tessera
// from it (the package), or where the build put it; empty when none exists.
std::string onnxCheckHelper()
{
    if (const char *env = std::getenv("TESSERA_ONNX_CHECK"); env && *env)
        return ::access(env, X_OK) == 0 ? std::string(env) : std::string();
    static const std::string found = [] {
        std::vector<std::filesystem::path> candidates;
        std::error_code ec;
        const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (!ec) {
            candidates.push_back(exe.parent_path() / "tessera-onnx-check");
            candidates.push_back(exe.parent_path() / ".." / "lib" / "tessera" / "tessera-onnx-check");
        }
#ifdef TESSERA_ONNX_CHECK_BUILD_PATH
        candidates.emplace_back(TESSERA_ONNX_CHECK_BUILD_PATH);
#endif
        for (const auto &c : candidates)
            if (::access(c.c_str(), X_OK) == 0)
                return c.string();
        return std::string();
    }();
    return found;
}

// Initializers of more than this many bytes stay out of what the helper
// gets: a graph input of the same type and shape stands for each (the
// checker and inference need their types and shapes, not their values; data
// propagation needs only small ones), so a 346 MB model does not travel
// whole. Tessera's own S4 has checked their sizes.
constexpr std::size_t kHelperInitializerBytes = 64 << 10;

// For the time it lives: the model's large initializers moved out of the
// graph (their places kept) and a graph input added for each that is not one
// already; the destructor puts everything back as it was.
class LargeInitializersSetAside
{
public:
    explicit LargeInitializersSetAside(::onnx::GraphProto &g) : m_graph(g)
    {
        std::set<std::string> inputs;
        for (const auto &in : g.input())
            inputs.insert(in.name());
        auto *inits = g.mutable_initializer();
        const int n = inits->size();
        m_all.resize(static_cast<std::size_t>(n), nullptr);
        for (int i = n; i-- > 0;)
            m_all[static_cast<std::size_t>(i)] = inits->ReleaseLast();
        for (::onnx::TensorProto *t : m_all) {
            const bool large =
                t->data_location() == ::onnx::TensorProto::EXTERNAL || t->raw_data().size() > kHelperInitializerBytes;
            if (!large) {
                inits->AddAllocated(t);
                continue;
            }
            m_aside.push_back(t);
            if (inputs.count(t->name()))
                continue;
            ::onnx::ValueInfoProto *v = g.add_input();
            v->set_name(t->name());
            auto *tensor = v->mutable_type()->mutable_tensor_type();
            tensor->set_elem_type(t->data_type());
            auto *shape = tensor->mutable_shape();
            for (std::int64_t d : t->dims())
                shape->add_dim()->set_dim_value(d);
            ++m_addedInputs;
        }
    }
    ~LargeInitializersSetAside()
    {
        for (int i = 0; i < m_addedInputs; ++i)
            m_graph.mutable_input()->RemoveLast();
        auto *inits = m_graph.mutable_initializer();
        while (!inits->empty())
            inits->ReleaseLast(); // each is in m_all
        for (::onnx::TensorProto *t : m_all)
            inits->AddAllocated(t);
    }
    LargeInitializersSetAside(const LargeInitializersSetAside &) = delete;
    LargeInitializersSetAside &operator=(const LargeInitializersSetAside &) = delete;

private:
    ::onnx::GraphProto &m_graph;
    std::vector<::onnx::TensorProto *> m_all; // every initializer, in order
    std::vector<::onnx::TensorProto *> m_aside;
    int m_addedInputs = 0;
};

// Starts the helper on the model (through a memory file as its standard
// input, large initializers set aside); its standard output on *readFd.
Expected<pid_t> spawnHelper(const std::string &helper, ::onnx::ModelProto &model, int *readFd)
{
    std::string bytes;
    {
        const LargeInitializersSetAside aside(*model.mutable_graph());
        if (!model.SerializeToString(&bytes))
            return Status::error(ErrorCode::Internal, "cannot serialize the model for the onnx check");
    }
    const int mem = ::memfd_create("tessera-onnx-model", MFD_CLOEXEC);
    if (mem < 0)
        return Status::error(ErrorCode::Internal, std::string("cannot create a memory file: ") + std::strerror(errno));
    writeAll(mem, bytes.data(), bytes.size());
    bytes = std::string();
    if (::lseek(mem, 0, SEEK_SET) != 0) {
        ::close(mem);
        return Status::error(ErrorCode::Internal,
                             std::string("cannot rewind the memory file: ") + std::strerror(errno));
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        ::close(mem);
        return Status::error(ErrorCode::Internal, std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, mem, 0);
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    char *argv[] = {const_cast<char *>(helper.c_str()), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, helper.c_str(), &actions, nullptr, argv, environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(mem);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return Status::error(ErrorCode::Internal, "cannot start " + helper + ": " + std::strerror(rc));
    }
    *readFd = fds[0];
    return pid;
}

// runLibonnx() in another process: the helper, spawned fresh, where it is
// found; else a forked child of this one (safe with glibc's malloc, not under
// GCC 12's AddressSanitizer: see the file's header). The output ends with the
// result, or with the last progress tag when the process died.
Status runIsolated(::onnx::ModelProto &model, const ImportContext &ctx, std::string &output)
{
    int readFd = -1;
    pid_t pid = -1;
    if (const std::string helper = onnxCheckHelper(); !helper.empty()) {
        auto spawned = spawnHelper(helper, model, &readFd);
        if (!spawned)
            return spawned.status().at(ctx.at());
        pid = *spawned;
    } else {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return Status::error(ErrorCode::Internal, std::string("cannot create a pipe: ") + std::strerror(errno));
        pid = ::fork();
        if (pid < 0) {
            ::close(fds[0]);
            ::close(fds[1]);
            return Status::error(ErrorCode::Internal,
                                 std::string("cannot fork the onnx check: ") + std::strerror(errno));
        }
        if (pid == 0) {
            // A libonnx crash should just end the child: no sanitizer or fuzzer
            // handler inherited from the parent should report it as the parent's.
            for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
                ::signal(sig, SIG_DFL);
            ::close(fds[0]);
            const std::string result = runLibonnx(model, fds[1]);
            writeAll(fds[1], result.data(), result.size());
            ::_exit(0);
        }
        ::close(fds[1]);
        readFd = fds[0];
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(ctx.options.onnxTimeoutSeconds);
    bool timedOut = false, cancelled = false;
    char buf[1 << 16];
    // With a cancel token, wake every 10 ms to look at it.
    const std::int64_t wakeMs = ctx.options.cancel ? 10 : 1000;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            ::kill(pid, SIGKILL);
            break;
        }
        if (!ctx.cancelled()) {
            cancelled = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd p{readFd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), wakeMs))) <= 0)
            continue;
        const ssize_t n = ::read(readFd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(readFd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string stage =
        !output.empty() && output.back() == InferenceStarted ? "onnx shape inference" : "onnx checker";
    if (cancelled)
        return ctx.cancelled();
    if (timedOut)
        return Status::invalid(stage + " did not finish within " + std::to_string(ctx.options.onnxTimeoutSeconds) +
                                   " s on this model",
                               ctx.at());
    if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0)
        return Status::invalid(stage + " crashed (" +
                                   (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                        : "exit status " + std::to_string(WEXITSTATUS(status))) +
                                   ") on this model: it is malformed in a way libonnx does not check",
                               ctx.at());
    // Drop the progress tags: the result starts after the last one.
    const std::size_t skip = std::min(output.find_first_not_of("ci"), output.size());
    output.erase(0, skip);
    return Status::ok();
}

} // namespace

Status checkAndInferShapes(::onnx::ModelProto &model, const ImportContext &ctx)
{
    hideUnknownOps(model);
    if (model.ir_version() > ::onnx::IR_VERSION) {
        ctx.log.warn("model ir_version " + std::to_string(model.ir_version()) +
                         " is newer than this onnx library's; checked as " + std::to_string(::onnx::IR_VERSION),
                     ctx.at());
        model.set_ir_version(::onnx::IR_VERSION);
    }
    std::string output;
    {
        const AbsoluteLocations pinned(*model.mutable_graph(), ctx.modelDir);
        const StaticShapesShown shapes(*model.mutable_graph()); // S6a
        if (ctx.options.isolateOnnx)
            TS_TRY(runIsolated(model, ctx, output));
        else
            output = runLibonnx(model, -1);
    }
    if (output.empty())
        return Status::error(ErrorCode::Internal, "the onnx check ended without a result", ctx.at());
    const std::string_view payload = std::string_view(output).substr(1);
    switch (output[0]) {
    case CheckerFailed: return fromException(std::string(payload).c_str(), "onnx checker", ctx);
    case InferenceFailed: return fromException(std::string(payload).c_str(), "onnx shape inference", ctx);
    case Done: break;
    default: return Status::error(ErrorCode::Internal, "the onnx check ended without a result", ctx.at());
    }
    ::onnx::GraphProto inferred;
    if (!inferred.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
        return Status::error(ErrorCode::Internal, "cannot read the inferred shapes back", ctx.at());
    model.mutable_graph()->mutable_value_info()->Swap(inferred.mutable_value_info());
    model.mutable_graph()->mutable_output()->Swap(inferred.mutable_output());
    return Status::ok();
}

} // namespace tessera::onnximport
