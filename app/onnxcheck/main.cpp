// tessera-onnx-check: the importer's helper process (core/onnx/onnx_checks.cpp,
// S6). Reads a serialized ModelProto from standard input, runs libonnx's
// checker and shape inference on it and writes runLibonnx()'s progress tags
// and result to standard output (core/onnx/libonnx_run.h). A libonnx crash or
// hang on a hostile model ends this process, never the importing one, and
// being spawned fresh (not forked from a multi-threaded program) it holds no
// lock another thread took. Not meant to be run by hand.
#include "core/onnx/libonnx_run.h"

#include <cerrno>
#include <csignal>
#include <string>
#include <unistd.h>

int main()
{
    // A libonnx crash just ends this process: no sanitizer or fuzzer handler
    // should report it as a fault of the build (the importer names the crash).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        ::signal(sig, SIG_DFL);
    std::string bytes;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bytes.append(buf, static_cast<std::size_t>(n));
    }
    using namespace tessera::onnximport;
    std::string result;
    ::onnx::ModelProto model;
    if (!model.ParseFromString(bytes))
        result = std::string(1, CheckerFailed) + "the importer passed a model protobuf cannot parse";
    else
        result = runLibonnx(model, 1);
    writeAll(1, result.data(), result.size());
    // As the forked child did: no exit handlers (libonnx's static registries
    // stay as they are; a leak checker has nothing of Tessera's to see).
    ::_exit(0);
}
