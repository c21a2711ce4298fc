// S6: libonnx's checker and shape inference. libonnx reports problems by
// throwing, and libonnx 1.12's shape inference also crashes on some malformed
// models (a ConvTranspose weight of lower rank than its input reads past the
// end of a dims list). So by default both run in a forked child process: its
// exceptions become messages, its death by a signal or a timeout becomes a
// Status, and only the inferred value infos travel back through a pipe. The
// node named in libonnx's message goes into the Location.
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
// The child only runs libonnx, protobuf and malloc before _exit(); the schema
// registry is initialised in the parent first (hideUnknownOps), so no lock
// another thread might hold at fork() time is needed in the child: glibc's
// malloc takes its arena locks around fork() (its atfork handlers). Not so
// under GCC 12's AddressSanitizer, whose allocator has no fork handling: a
// child forked while another thread of the parent held an allocator lock
// waits for it forever, and the import fails at the timeout (seen in the
// workbench tests under the asan preset, about one load in three while a
// layout thread allocates; docs/fuzzing.md). The remedy is to spawn a fresh
// helper process instead of forking (posix_spawn, the model through a
// memory file, large initializers left out); not done yet.
#include "core/onnx/internal.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

// What runLibonnx() reports, as the first byte of its output. Progress bytes
// name the stage that was running if the child dies.
enum Tag : char {
    CheckerStarted = 'c',
    InferenceStarted = 'i',
    CheckerFailed = 'C',
    InferenceFailed = 'I',
    Done = 'K'
};

void writeAll(int fd, const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

// Checker then inference; returns Done + a GraphProto holding the inferred
// value_info and outputs, or a failure tag + libonnx's message. Progress tags
// go to `progressFd` first when it is valid.
std::string runLibonnx(::onnx::ModelProto &model, int progressFd)
{
    auto progress = [progressFd](Tag t) {
        if (progressFd >= 0)
            writeAll(progressFd, reinterpret_cast<const char *>(&t), 1);
    };
    auto failure = [](Tag t, const char *what) { return std::string(1, t) + (what ? what : "unknown error"); };
    progress(CheckerStarted);
    try {
        ::onnx::checker::check_model(model);
    } catch (const std::exception &e) {
        return failure(CheckerFailed, e.what());
    } catch (...) {
        return failure(CheckerFailed, nullptr);
    }
    progress(InferenceStarted);
    try {
        const ::onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0, /*data_prop=*/true);
        ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception &e) {
        return failure(InferenceFailed, e.what());
    } catch (...) {
        return failure(InferenceFailed, nullptr);
    }
    ::onnx::GraphProto inferred;
    inferred.mutable_value_info()->Swap(model.mutable_graph()->mutable_value_info());
    inferred.mutable_output()->Swap(model.mutable_graph()->mutable_output());
    return std::string(1, Done) + inferred.SerializeAsString();
}

// runLibonnx() in a child process. The output ends with the result, or with
// the last progress tag when the child died.
Status runIsolated(::onnx::ModelProto &model, const ImportContext &ctx, std::string &output)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Status::error(ErrorCode::Internal, std::string("cannot create a pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Status::error(ErrorCode::Internal, std::string("cannot fork the onnx check: ") + std::strerror(errno));
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
        pollfd p{fds[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), wakeMs))) <= 0)
            continue;
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
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
